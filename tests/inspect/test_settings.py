"""The hook's settings: the environment variable and the task's metadata, checked by hand."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (pip install 'passhat[inspect]')"
)

from passhat.errors import OptionError
from passhat.inspect import settings as settings_module
from passhat.inspect.settings import ENV_VAR, HookSettings, asked, mark_used


@pytest.mark.parametrize("text", ["", "0", "false", "No", " off ", "\n"])
def test_off_values(text: str) -> None:
    assert HookSettings.parse(text) is None


@pytest.mark.parametrize("text", ["1", "true", "YES", "on", "estimate"])
def test_on_values(text: str) -> None:
    assert HookSettings.parse(text) == HookSettings()


def test_defaults() -> None:
    s = HookSettings()
    assert (s.k, s.ci, s.scorer, s.threshold, s.report, s.model, s.n_boot, s.seed) == (
        None, 0.95, None, 1.0, False, True, 10_000, 0,
    )  # fmt: skip


def test_json_settings() -> None:
    s = HookSettings.parse(
        '{"k": [4, 1, 2], "ci": 0.8, "scorer": "match", "threshold": 0.5, "report": true, '
        '"model": false, "n_boot": 2000, "seed": 7}'
    )
    assert s == HookSettings(
        k=(1, 2, 4), ci=0.8, scorer="match", threshold=0.5, report=True, model=False,
        n_boot=2000, seed=7,
    )  # fmt: skip
    assert HookSettings.parse('{"k": 3}').k == (3,)
    assert HookSettings.parse("report") == HookSettings(report=True)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("maybe", "PASSHAT_INSPECT='maybe': give 1 (write the estimate), report"),
        ("{k: 1}", "PASSHAT_INSPECT: not valid JSON"),
        ('{"level": 0.9}', "unknown setting(s) 'level'; the settings are k, ci, scorer"),
        ('{"ci": 95}', "PASSHAT_INSPECT: ci must lie strictly between 0 and 1"),
        ('{"k": 0}', "PASSHAT_INSPECT: k must be whole numbers ≥ 1"),
        ('{"report": "yes"}', "PASSHAT_INSPECT: report must be true or false (got 'yes')"),
        ('{"seed": 1.5}', "PASSHAT_INSPECT: seed must be a whole number"),
        ('{"threshold": null}', "PASSHAT_INSPECT: threshold must be a finite number"),
        ('{"scorer": 3}', "PASSHAT_INSPECT: scorer must be a scorer's name"),
        ("[1, 2]", "PASSHAT_INSPECT='[1, 2]'"),
    ],
)
def test_bad_values_say_what_to_give(text: str, message: str) -> None:
    with pytest.raises(OptionError) as err:
        HookSettings.parse(text)
    assert message in str(err.value)


def test_metadata_over_environment() -> None:
    env = '{"ci": 0.8, "k": [2]}'
    assert HookSettings.resolve(env=None, metadata=None) is None
    assert HookSettings.resolve(env=None, metadata={"other": 1}) is None
    assert HookSettings.resolve(env=env, metadata=None) == HookSettings(ci=0.8, k=(2,))
    assert HookSettings.resolve(env=None, metadata={"passhat": True}) == HookSettings()
    assert HookSettings.resolve(env=env, metadata={"passhat": True}) == HookSettings(ci=0.8, k=(2,))
    both = HookSettings.resolve(env=env, metadata={"passhat": {"k": [1, 3]}})
    assert both == HookSettings(ci=0.8, k=(1, 3))  # key by key
    assert HookSettings.resolve(env=env, metadata={"passhat": '{"seed": 2}'}) == HookSettings(
        ci=0.8, k=(2,), seed=2
    )
    assert HookSettings.resolve(env=env, metadata={"passhat": "report"}).report  # type: ignore[union-attr]
    for off in (False, None, "0"):
        assert HookSettings.resolve(env=env, metadata={"passhat": off}) is None
    with pytest.raises(OptionError, match="task metadata 'passhat': give true, false"):
        HookSettings.resolve(env=None, metadata={"passhat": 3})
    with pytest.raises(OptionError, match="task metadata 'passhat': unknown setting"):
        HookSettings.resolve(env=None, metadata={"passhat": {"ks": [1]}})


def test_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(settings_module._state, "used", False)
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert not asked()
    monkeypatch.setenv(ENV_VAR, "0")
    assert not asked()
    monkeypatch.setenv(ENV_VAR, "report")
    assert asked()
    monkeypatch.delenv(ENV_VAR)
    mark_used()
    assert asked()
