"""ddmin finds the smallest reproducing subset, in few tests, and stops when out of budget."""

from __future__ import annotations

from collections.abc import Callable

from envsnap.experiment.ddmin import ddmin

ITEMS = [f"d{i}" for i in range(10)]


def _counting(
    needed: set[str],
) -> tuple[list[tuple[str, ...]], Callable[[tuple[str, ...]], bool]]:
    calls: list[tuple[str, ...]] = []

    def test(subset: tuple[str, ...]) -> bool:
        calls.append(subset)
        return needed <= set(subset)

    return calls, test


def test_one_cause_among_ten_in_logarithmic_tests() -> None:
    for cause in ITEMS:
        calls, test = _counting({cause})
        result = ddmin(ITEMS, test)
        assert result.subset == [cause] and result.minimal
        assert len(calls) <= 8


def test_two_causes_that_only_act_together() -> None:
    _, test = _counting({"d1", "d8"})
    result = ddmin(ITEMS, test)
    assert sorted(result.subset) == ["d1", "d8"] and result.minimal


def test_out_of_budget_returns_what_is_known_unminimised() -> None:
    answers = iter([True, None])
    result = ddmin(ITEMS, lambda subset: next(answers))
    assert result.subset == ITEMS[:5]
    assert result.minimal is False
