"""Films of a tiny Transformer learning, trained outside the page's thread: shared, cached, limited.

- `backend.py`: `service()`, this process's one film service (a trainer process of this lab on a
  laptop; the hall's RQ workers where ATTENTION_LAB_REDIS_URL is set), and `make_film_service`.
- `service.py`: the calls a page makes (documented there), in-process; `rq_service.py`: the same
  on the hall's Redis, with `rq_job.py` the workers' side.
- `jobs.py`: the job a page follows, FilmQueueFull and every sentence a student reads.
- `store.py`: films on disk; `trainer.py` / `child.py`: the lab's and the trainer process's
  ends of a training.

This file imports nothing: the trainer process (`python -m classroom.films.child`) ties itself
to the lab before it loads torch.
"""
