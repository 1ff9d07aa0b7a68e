"""The race's settings (surface, plane, start, runners, steps) as text and in a URL, and kept in step with it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from explorer import links
from explorer.numbers import number_from_link
from explorer.race import keys
from explorer.race.course import KINDS, MAX_RUNNERS, MAX_STEPS, OWN, SURFACES, Race, check_runner, runner
from explorer.settings import PartlyRead, Setting, read_query, settings_query

# ----------------------------------------------------------------------------- the race in a URL


def runners_text(runners: tuple) -> str:
    """``sgd(lr=0.001);adam(lr=0.1,beta1=0.8)``: each runner's kind, its learning rate and the settings it uses
    that differ from the kind's defaults."""
    parts = []
    for r in runners:
        base = runner(r.kind)
        shown = [f"{n}={v:.10g}" for n, v in r.settings().items() if n == "lr" or v != getattr(base, n)]
        parts.append(f"{r.kind}({','.join(shown)})")
    return ";".join(parts)


def runners_from_text(text: str) -> tuple[tuple, list[str]]:
    """The runners a URL's text names (see runners_text) and what was wrong in it, each in words."""
    runners, problems, extra = [], [], 0
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        kind, _, rest = part.partition("(")
        kind = kind.strip().lower()
        if kind not in KINDS:
            problems.append(f"`{part[:40]}`: there is no optimiser called `{kind[:20]}` "
                            f"(choose from {', '.join(KINDS)})")
            continue
        settings, bad = {}, ""
        for item in (i.strip() for i in rest.rstrip(")").split(",")):
            if not item:
                continue
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep or name not in KINDS[kind].settings:
                bad = f"{KINDS[kind].title} has no setting `{name[:20]}` (it has {', '.join(KINDS[kind].settings)})"
                break
            try:
                settings[name] = number_from_link(value)
            except ValueError:
                bad = f"`{value[:20]}` is not a number"
                break
        r = None if bad else runner(kind, **settings)
        bad = bad or check_runner(r)
        if bad:
            problems.append(f"`{part[:60]}`: {bad}")
        elif len(runners) == MAX_RUNNERS:
            extra += 1
        else:
            runners.append(r)
    if extra:
        problems.append(f"a race has at most {MAX_RUNNERS} optimisers: the first {MAX_RUNNERS} race, "
                        f"{extra:,} more {'was' if extra == 1 else 'were'} left out")
    return tuple(runners), problems


def pair_text(pair: tuple) -> str:
    return f"{pair[0]:.10g},{pair[1]:.10g}"


def pair_from_text(text: str) -> tuple | None:
    """Two finite numbers from ``-1.5,2``, else None."""
    parts = text.split(",")
    if len(parts) != 2:
        return None
    try:
        pair = (number_from_link(parts[0]), number_from_link(parts[1]))
    except ValueError:
        return None
    return pair if all(math.isfinite(v) for v in pair) else None


def with_start(race: Race, start: tuple) -> Race:
    return replace(race, start=tuple(float(v) for v in start))


# ----------------------------------------------------------------------------- what the page shows, and its URL


@dataclass(frozen=True)
class Setup:
    """The whole race as the learner set it up (and as the URL keeps it): the surface (a SURFACES key, or OWN:
    the program the Expression Explorer shows, which the URL keeps as ``program``), the plane, the start point,
    the optimisers and the number of steps."""

    surface: str = "rosenbrock"
    x: str = "x"
    y: str = "y"
    start: tuple = (-1.5, 2.0)
    runners: tuple = ()
    steps: int = 300

    @property
    def plane(self) -> tuple[str, str]:
        return self.x, self.y

    @property
    def opt(self) -> tuple:
        """The runners, by their URL key."""
        return self.runners

    def race(self, own_text: str) -> Race:
        """The race this setup asks for (the learner's program is ``own_text``)."""
        if self.surface == OWN:
            return Race(own_text, self.x, self.y, self.start, self.runners, self.steps)
        s = SURFACES[self.surface]
        return Race(s.text, "x", "y", self.start, self.runners, self.steps, s.box)


def preset_setup(name: str, steps: int = 300) -> Setup:
    """A preset surface with its own start point and first runners."""
    s = SURFACES[name]
    return Setup(name, "x", "y", s.start, s.runners(), steps)


DEFAULT = preset_setup("rosenbrock")


def _plane_from_text(text: str) -> tuple[str, str]:
    names = tuple(n.strip() for n in text.split(","))
    if len(names) == 2 and all(n.isidentifier() for n in names) and names[0] != names[1]:
        return names
    raise ValueError("write two different input names, as `a,b`")


def _start_from_text(text: str) -> tuple[float, float]:
    pair = pair_from_text(text)
    if pair is None:
        raise ValueError("write two finite numbers, as `-1.5,2`")
    return pair


def _runners_from_link(text: str) -> tuple:
    runners, bad = runners_from_text(text)
    if bad:
        raise PartlyRead(runners or None, bad)
    if not runners:
        raise ValueError("no optimisers named; a race needs at least one")
    return runners


#: The race's settings as a link keeps them, one row each (explorer/settings.py reads and writes them). The surface
#: comes first: a new surface brings its own start point and runners, which the other rows then change.
ROWS: tuple[Setting, ...] = (
    Setting("Surface", "select", name="surface", choices=(*SURFACES, OWN)),
    Setting("Plane", "text", name="plane", reads=_plane_from_text, writes=",".join),
    Setting("Start", "text", name="start", reads=_start_from_text, writes=pair_text),
    Setting("Optimisers", "text", name="opt", reads=_runners_from_link, writes=runners_text),
    Setting("Steps", "number", name="steps", lo=1, hi=MAX_STEPS, step=1),
)
#: The URL's keys for a race (the learner's program travels as ``program``, as on the program pages).
QUERY_KEYS = tuple(s.name for s in ROWS)
#: The parameters the race page reads from its link.
LINK_PARAMS = ("program", *QUERY_KEYS)


def setup_query(setup: Setup) -> dict:
    """The URL's params for ``setup`` (the plane only for the learner's own program)."""
    return settings_query(setup, [s for s in ROWS if s.name != "plane" or setup.surface == OWN])


def setup_from_query(query: Mapping, default: Setup = DEFAULT) -> tuple[Setup, list[str]]:
    """The setup a URL's params describe, and what was wrong in them, each in words (a wrong part keeps the
    default's value for it: a preset's own start point and runners when the surface changed)."""
    read, _, problems = read_query(ROWS[:1], query, kept=lambda name: default.surface)
    surface = read.get("surface", default.surface)
    if surface != default.surface:
        default = preset_setup(surface, default.steps) if surface in SURFACES else replace(default, surface=OWN)
    skip = () if default.surface == OWN else ("plane",)
    read, _, more = read_query(ROWS[1:], query, skip=skip, kept=lambda name: getattr(default, name))
    x, y = read.get("plane", default.plane)
    setup = replace(default, x=x, y=y, start=read.get("start", default.start),
                    runners=read.get("opt", default.runners), steps=read.get("steps", default.steps))
    return setup, problems + more


def sync(session, query, default: Setup = DEFAULT) -> tuple[Setup, list[str]]:
    """Keeps ``session['race_setup']`` and the URL in step; returns (setup, what a link got wrong).

    A link's params (ones this session did not write) win, as a link's program does; otherwise the session's
    setup is written to the URL. When the setup is set here rather than by a widget, ``session['race_version']``
    grows (the widgets are made anew with its values)."""
    problems: list[str] = []
    from_url = {k: query[k] for k in QUERY_KEYS if k in query}
    if links.link_wins(session, "race", from_url):
        session[keys.SETUP], problems = setup_from_query(from_url, session.get(keys.SETUP, default))
        session[keys.VERSION] = session.get(keys.VERSION, 0) + 1
    setup = session.setdefault(keys.SETUP, default)
    wanted = setup_query(setup)
    for key in QUERY_KEYS:
        if key in wanted and query.get(key) != wanted[key]:
            query[key] = wanted[key]
        elif key not in wanted and key in query:
            del query[key]
    links.wrote(session, "race", wanted)
    return setup, problems
