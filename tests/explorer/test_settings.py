"""The one settings codec (explorer/settings.py): rows read and written the same way on every page that has them."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from explorer.depth_lab import lab
from explorer.playground import settings as playground
from explorer.race import course, setup
from explorer.settings import PartlyRead, Setting, read_query, rows, setting, settings_query


def _pair(text: str) -> tuple[int, int]:
    a, sep, b = text.partition("x")
    if not (sep and a.isdigit() and b.isdigit()):
        raise ValueError("write two whole numbers, as `3x4`")
    return int(a), int(b)


def _words(text: str) -> tuple[str, ...]:
    good = tuple(w for w in text.split(",") if w.isalpha())
    bad = [f"`{w}` is not a word" for w in text.split(",") if not w.isalpha()]
    if bad:
        raise PartlyRead(good or None, bad)
    return good


@dataclass(frozen=True)
class Toy:
    size: tuple = setting((3, 4), "Size", "text", reads=_pair, writes=lambda p: f"{p[0]}x{p[1]}")
    tags: tuple = setting(("a",), "Tags", "text", reads=_words, writes=",".join)
    depth: int = setting(5, "Depth", "slider", lo=1, hi=10, step=1)


TOY = rows(Toy)


def test_rows_are_named_after_their_fields_and_write_with_their_own_text():
    assert [s.name for s in TOY] == ["size", "tags", "depth"]
    assert settings_query(Toy(), TOY) == {"size": "3x4", "tags": "a", "depth": "5"}


def test_a_setting_read_by_its_own_reader_is_kept_or_refused_with_its_words():
    values, refused, problems = read_query(TOY, {"size": "7x2", "depth": "99"})
    assert values == {"size": (7, 2), "depth": 10} and refused == []
    assert problems == ["depth='99' is above the largest 10: using 10"]
    values, _, problems = read_query(TOY, {"size": "big"}, kept=lambda name: getattr(Toy, name))
    assert values == {} and problems == ["size='big' is not valid (write two whole numbers, as `3x4`); kept 3x4"]


def test_a_text_read_in_part_keeps_the_part_and_says_each_part_not():
    values, _, problems = read_query(TOY, {"tags": "ok,1,fine,2"})
    assert values == {"tags": ("ok", "fine")}
    assert problems == ["tags: `1` is not a word", "tags: `2` is not a word"]
    values, refused, problems = read_query(TOY, {"tags": "1"}, kept=lambda name: ("a",))
    assert values == {} and refused == [] and problems == ["tags: `1` is not a word; kept a"]
    values, refused, problems = read_query(TOY, {"tags": "1"})
    assert values == {} and refused == [("tags", "tags: `1` is not a word")] and problems == []


def test_the_playgrounds_widths_read_by_their_row_not_by_their_name():
    hidden = playground.SETTING["hidden"]
    assert hidden.parse("8,8") == (8, 8) and hidden.parse("-") == () and hidden.text(()) == "-"
    with pytest.raises(ValueError, match="at most 8 hidden layers"):
        hidden.check((1,) * 9, "classification")


@pytest.mark.parametrize("name", [*course.SURFACES, "own"])
def test_the_race_goes_through_its_link_and_back(name):
    if name == "own":
        race = setup.Setup(course.OWN, "a", "b", (0.5, -2.0), setup.DEFAULT.runners, 40)
    else:
        race = setup.preset_setup(name, 77)
    query = setup.setup_query(race)
    assert ("plane" in query) == (name == "own")
    assert setup.setup_from_query(query) == (race, [])


def test_a_race_link_is_read_by_the_codec_with_the_surface_first():
    race, problems = setup.setup_from_query({"surface": "saddle", "steps": "5000", "opt": "sgd(lr=0.1);nope"})
    assert race.surface == "saddle" and race.start == course.SURFACES["saddle"].start
    assert race.steps == course.MAX_STEPS and [r.kind for r in race.runners] == ["sgd"]
    assert problems[0].startswith("opt: `nope`: there is no optimiser called `nope`")
    assert problems[1] == f"steps='5000' is above the largest {course.MAX_STEPS}: using {course.MAX_STEPS}"
    race, problems = setup.setup_from_query({"surface": "rosenbrock", "plane": "a,b"})
    assert race.plane == ("x", "y") and problems == [], "a preset surface has no plane to set"
    race, problems = setup.setup_from_query({"opt": ""})
    assert race.runners == setup.DEFAULT.runners
    assert problems == ["opt='' is not valid (no optimisers named; a race needs at least one); kept "
                        + setup.runners_text(setup.DEFAULT.runners)]


def test_every_page_with_settings_declares_its_link_parameters_from_its_rows():
    assert (*(s.name for s in playground.SETTINGS), "run") == playground.LINK_PARAMS
    assert tuple(s.name for s in lab.LAB_SETTINGS) == lab.LINK_PARAMS
    assert ("program", *(s.name for s in setup.ROWS)) == setup.LINK_PARAMS
    assert all(isinstance(s, Setting) for s in (*playground.SETTINGS, *lab.LAB_SETTINGS, *setup.ROWS))
