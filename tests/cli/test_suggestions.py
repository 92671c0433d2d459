"""A mistyped command, flag or value of a flag is refused (exit 2) with the closest one."""

from __future__ import annotations

import pytest

from jubex.cli.main import main


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["rnu", "ior.yaml"], "did you mean 'run'?"),
        (["validat", "ior.yaml"], "did you mean 'validate'?"),
        (["run", "ior.yaml", "--dryrun"], "--dryrun (did you mean '--dry-run'?)"),
        (["run", "ior.yaml", "--platfrom", "slurm"], "--platfrom (did you mean '--platform'?)"),
        (["run", "ior.yaml", "--max-workpakages=3"], "did you mean '--max-workpackages'?"),
        (["result", "-f", "jsno"], "invalid choice: 'jsno' (choose from"),
        (["result", "-f", "jsno"], "(did you mean 'json'?)"),
        (["init", "iro"], "did you mean 'ior'?"),
        (["plot", "--stat", "maen"], "did you mean 'mean'?"),
        (["completion", "fsh"], "did you mean 'fish'?"),
        (["--verison"], "--verison (did you mean '--version'?)"),
    ],
)
def test_a_mistyped_word_gets_the_closest_valid_one(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    err = capsys.readouterr().err
    assert done.value.code == 2 and hint in err, err
    assert err.startswith("usage: jubex")


def test_words_nothing_is_close_to_are_refused_without_a_guess(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        main(["run", "ior.yaml", "--zzz", "extra"])
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert err.splitlines()[-1] == "jubex run: error: unrecognized arguments: --zzz extra"
