"""attention-lab's Streamlit dashboard: `streamlit run dashboard/app.py` (or `make run`)."""
