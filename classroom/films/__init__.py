"""Films of a tiny Transformer learning, trained outside the page's thread: shared, cached, limited.

- `service.py`: the calls a page makes (documented there), in a trainer process of this lab or on
  the hall's workers, and `service()`, this process's one film service.
- `task.py`: films as jobs (jobs/): the film task, the job a page follows and every sentence a
  student reads.
- `store.py`: films on disk; `trainer.py` / `child.py`: the lab's and the trainer process's
  ends of a training.

This file imports nothing: the trainer process (`python -m classroom.films.child`) ties itself
to the lab before it loads torch.
"""
