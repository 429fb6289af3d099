"""The induction scene's last numbers, measured again here: the heads the run names and what
removing them does (a hand ablation on the film's trained model), and the final loss the Watch it
learn page shows for the same run (the page itself, opened with that film)."""

import re

import numpy as np
import pytest

from core.film import LearnSettings

from .test_induction_scene import said


@pytest.fixture(scope="module")
def scene(dry_scene):
    return dry_scene("induction", "default")


@pytest.fixture(scope="module")
def film(scene):
    assert scene.film.settings == LearnSettings()
    return scene.film


def test_the_work_is_shared_as_a_hand_ablation_measures_it(scene, film):
    """The last step: how many heads the run names (as the Watch it learn page names them), and the
    copied characters the trained model predicts on fresh sequences with its top induction head, then
    all of them, silenced by hand here (their W_V rows zeroed, so they add nothing)."""
    import torch

    from core.learn import ABLATION_SEED, ABLATION_SEQUENCES
    from core.learn_tasks import task_batch
    from core.tiny_model import TinyTransformer

    s = film.settings
    prev = [(la, h) for la in (1, 2) for h in range(1, s.heads + 1) if film.previous_token[-1, la - 1, h - 1] >= 0.5]
    ind = [(la, h) for la in (1, 2) for h in range(1, s.heads + 1) if film.induction[-1, la - 1, h - 1] >= 0.5]
    batch = task_batch(s.task, torch.Generator().manual_seed(ABLATION_SEED), ABLATION_SEQUENCES)

    def predicted(silenced) -> str:
        model = TinyTransformer.empty(vocab=32, max_len=48, d_model=s.d_model, heads=s.heads, layers=s.layers,
                                      positions=s.positions, causal=s.causal)
        model.load_state_dict({k: torch.from_numpy(np.asarray(v)) for k, v in film.params.items()})
        d_k = s.d_model // s.heads
        with torch.no_grad():
            for la, h in silenced:
                rows = slice(2 * s.d_model + (h - 1) * d_k, 2 * s.d_model + h * d_k)
                model.layers[la - 1].in_proj.weight[rows] = 0
                model.layers[la - 1].in_proj.bias[rows] = 0
            logits, _ = model(batch.tokens)
        right = logits[:, :-1][batch.scored].argmax(-1) == batch.tokens[:, 1:][batch.scored]
        return f"{round(100 * float(right.float().mean()))}%"

    top = scene.heads["induction"]
    expected = {"none": predicted([]), "top": predicted([top]), "all": predicted(ind)}
    assert dict(scene.ablation_drawn) == expected if len(ind) > 1 else {k: expected[k] for k in ("none", "top")}
    shared = said(scene)["shared-work"]
    heads = "head" if len(prev) == 1 else "heads"  # the default film names one
    assert f"This run names {len(prev)} previous-token {heads} and {len(ind)} induction heads" in shared
    assert f"predicts {expected['none']} of a second copy's characters" in shared
    assert f"Remove layer {top[0]}, head {top[1]} alone, and it still predicts {expected['top']}" in shared
    assert f"remove all {len(ind)} induction heads, and {expected['all']}" in shared
    assert f"The {len(ind)} induction heads share the copying." in shared  # the default run: each alone does little
    assert "not one of each" not in shared and "no one head does it" not in shared
    assert len(prev) == 1 and f"Remove its one previous-token head, layer {prev[0][0]}, head {prev[0][1]}, and it " \
        f"predicts {predicted(prev)}: that head has no backup." in shared
    assert "two heads" not in " ".join(scene.captions)


def test_the_final_loss_said_is_the_one_the_watch_it_learn_page_shows(scene, film, tmp_path):
    """The same run on the page: its caption's "final loss 0.84" is the number the video says."""
    from classroom.films.service import FilmService
    from dashboard.app_pages import film as film_parts
    from tests.dashboard.conftest import open_app

    service = FilmService(media_dir=tmp_path, warm=False)
    film.save(service.store.folder(film.settings.key()))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(film_parts, "service", lambda: service)
        at = open_app(page="watch-it-learn")
        at.button(key="film_q_which_skip").click().run()
    service.shutdown()
    page = re.search(r"final loss (\d\.\d\d)", " ".join(c.value for c in at.caption)).group(1)
    assert f"it averages {page}." in said(scene)["the-loss"]
