"""The lecture hall: several lab processes behind HAProxy, what they share in Redis.

`python -m hall` (`make hall`) runs it on one machine; `deploy/` runs the same HAProxy
configuration across machines with docker compose. One Streamlit process runs every session's
script under one GIL; a hall serves more students by running more of them.
"""
