"""attention-lab's classroom, plain Python (no Streamlit): the questions a lesson's own numbers
answer, the changes a question can ask about, comparisons of two lessons, and rooms where a class
answers together (registries in memory or in Redis)."""
