"""One scene per topic; each draws run_trace(cfg) of its lesson."""
