"""benchmarks/load.py's classroom scenario: one process direct vs two behind HAProxy, uploads, faults, the run store.

    python benchmarks/load.py --scenario classroom --sessions 12 --seconds 20

Loopback only, every server started here and stopped by its process group; each part is bounded
in time. Parts (each figure printed with the load average at that moment: the machine is shared):
1. direct: N learners playing on one Streamlit process: painted frames/s per learner (the live
   view's `data-frame`), min and median; the process's CPU; /_stcore/health p95.
2. balanced: the same N learners on two processes behind HAProxy (deploy/classroom.py): the same
   figures, each process's CPU, health p95 through the balancer, how the learners spread over the
   processes (SERVERID cookie) and whether each stayed on its own.
3. faults (on the balanced class): `kill -9` of one process mid-class: how many of its learners'
   pages play again (on the other process or the restarted one), after how long, and how many
   steps each lost (the step shown when its connection dropped minus the step it came back at).
4. uploads: CSV and model uploads through the balancer, each in a fresh browser: how many worked.
5. restart: the whole class stopped and started again: how many learners' run links open their run.
6. store: 200 runs saved within a minute by 4 processes into one SQLite file with a small bound:
   errors (`database is locked`), size vs bound, save latency p50/p95.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from benchmarks import load as base
from deploy.classroom import Classroom, free_ports

MB = 1_000_000
FROZEN = 2.0  # seconds after a kill in which a page still paints the frames it had received


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _run_id(page) -> str:
    return _run_id_of(page.url)


def _run_id_of(link: str) -> str:
    return parse_qs(urlparse(link).query).get("run", [""])[0]


def _server(context) -> str:
    return {c["name"]: c["value"] for c in context.cookies()}.get("SERVERID", "")


def _counters(page) -> dict:
    return page.evaluate(base.COUNTERS_JS)


def _learners(browser, url: str, n: int) -> tuple[list, list]:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(n)]
    pages = [base.open_page(c, f"{url}/playground") for c in contexts]
    for page in pages:
        base.start_playing(page)
    pages[0].wait_for_timeout(3000)  # every learner past its first frames
    return contexts, pages


def _play(pages, trees: list[base.Tree], url: str, seconds: float) -> dict:
    """Painted frames/s of each page, CPU of each process tree, health p95 at `url`, over `seconds`."""
    cpu = [t.cpu_seconds() for t in trees]
    bytes_of = [base.FrameBytes(p) for p in pages]
    t0 = time.monotonic()
    result = base.measure_play(pages, bytes_of, seconds, trees[0], url)
    elapsed = time.monotonic() - t0
    rates = [s["updates_per_s"] for s in result["sessions"]]
    return {
        "learners": len(pages),
        "frames_per_s_min_median": [min(rates), round(statistics.median(rates), 2)],
        "frames_per_s": rates,
        "steps_per_s_median": statistics.median(s["steps_per_s"] for s in result["sessions"]),
        "process_cpu_percent": [round(100 * (t.cpu_seconds() - c) / elapsed, 1) for t, c in zip(trees, cpu)],
        "health_p95_ms": result["health_p95_ms"],
        "seconds": result["seconds"],
        "load_average": _load(),
    }


def part_direct(browser, args, env: dict) -> dict:
    room = Classroom(processes=1, port=free_ports(1)[0], host="127.0.0.1", env=env, restart=False)
    room.backend_ports = free_ports(1)
    room.start()
    try:
        url = room.backend_url(0)  # the process itself, not the balancer
        contexts, pages = _learners(browser, url, args.sessions)
        result = _play(pages, [base.Tree(room.streamlits[0].pid)], url, args.seconds)
        for c in contexts:
            c.close()
        return result
    finally:
        room.stop()


def part_balanced(browser, args, env: dict) -> dict:
    port, *backends = free_ports(3)
    room = Classroom(processes=2, port=port, host="127.0.0.1", backend_ports=backends, env=env, restart=True)
    room.start()
    contexts = []
    try:
        contexts, pages = _learners(browser, room.url, args.sessions)
        servers = [_server(c) for c in contexts]
        result = _play(pages, [base.Tree(p.pid) for p in room.streamlits], room.url, args.seconds)
        result["learners_per_process"] = {s: servers.count(s) for s in sorted(set(servers))}
        result["each_stayed_on_its_process"] = [_server(c) for c in contexts] == servers
        result["faults"] = _kill_one(room, pages, contexts, servers, args)
        for page in pages:  # paused: a run link then opens the run itself, not a copy
            page.get_by_role("button", name="Pause", exact=True).click()
        pages[0].wait_for_timeout(2000)
        links = [p.url for p in pages]
        steps = [_counters(p)["step"] for p in pages]
        for c in contexts:
            c.close()
        contexts = []
        room.stop()
        room = Classroom(processes=2, port=port, host="127.0.0.1", backend_ports=backends, env=env, restart=True)
        room.start()  # the whole class again, on the same store
        result["restart"] = _reopen(browser, links, steps)
        result["uploads"] = _uploads(browser, room, args)
        return result
    finally:
        for c in contexts:
            c.close()
        room.stop()


STATE_JS = f"""() => {{
    const app = document.querySelector('[data-testid="stApp"]');
    return {{connection: app ? app.getAttribute('data-test-connection-state') : '',
             step: ({base.COUNTERS_JS})().step}};
}}"""


def _kill_one(room: Classroom, pages, contexts, servers: list[str], args) -> dict:
    """kill -9 the process that serves s1's learners and follow each of its pages. For FROZEN seconds the page
    paints the frames it had; the highest step it shows then is where it stopped. Afterwards the lowest step it
    shows is where it came back (its run's last snapshot, restored by a live process), and it plays again
    once 10 steps past that: steps lost = stopped - came back (0 if it came back ahead of what it had painted)."""
    victims = [i for i, s in enumerate(servers) if s == "s1"]
    runs = {i: _run_id(pages[i]) for i in victims}
    pid = room.kill(0)
    killed_at = time.monotonic()
    stopped = {i: _counters(pages[i])["step"] for i in victims}
    low: dict[int, int] = {}
    back: dict[int, dict] = {}
    seen: dict[int, dict] = {}
    deadline = killed_at + args.fault_timeout
    while len(back) < len(victims) and time.monotonic() < deadline:
        frozen = time.monotonic() - killed_at < FROZEN
        for i in victims:
            if i in back:
                continue
            try:
                seen[i] = pages[i].evaluate(STATE_JS)
            except Exception:  # noqa: BLE001 - the page is between documents
                continue
            step = seen[i]["step"]
            if frozen:
                stopped[i] = max(stopped[i], step)
                continue
            low[i] = min(low.get(i, stopped[i]), step)
            if step >= low[i] + 10 and seen[i]["connection"] == "CONNECTED":
                back[i] = {"after_s": round(time.monotonic() - killed_at, 1), "came_back_at": low[i],
                           "steps_lost": stopped[i] - low[i], "same_run_id": _run_id(pages[i]) == runs[i],
                           "server_now": _server(contexts[i])}
        pages[0].wait_for_timeout(100)
    lost = [b["steps_lost"] for b in back.values()]
    return {
        "killed_pid": pid, "learners_on_it": len(victims), "played_again": len(back),
        "seconds_to_play_again_max": max((b["after_s"] for b in back.values()), default=None),
        "steps_lost_max": max(lost, default=None), "steps_lost_median": statistics.median(lost) if lost else None,
        "same_run_id": sum(b["same_run_id"] for b in back.values()),
        "came_back_at_minus_painted": [b["came_back_at"] - stopped[i] for i, b in back.items()],
        "now_on": sorted({b["server_now"] for b in back.values()}),
        "not_back": {i: seen.get(i) for i in victims if i not in back},
        "process_restarted": room.restarts, "load_average": _load(),
    }


def _reopen(browser, links: list[str], steps: list[int]) -> dict:
    """Each learner's run link in a fresh browser, after the class was stopped and started again."""
    found = 0
    for link, step in zip(links, steps):
        context = browser.new_context()
        try:
            page = base.open_page(context, link)
            page.wait_for_function(base.READY_JS, timeout=120_000, polling=500)
            shown = _counters(page)["step"]
            found += _run_id(page) == _run_id_of(link) and shown == step
        finally:
            context.close()
    return {"links": len(links), "opened_their_run": found, "load_average": _load()}


def _uploads(browser, room: Classroom, args) -> dict:
    """CSV and model uploads through the balancer, each from a fresh browser (a new session, either process)."""
    from explorer.playground import model_files, training
    from explorer.playground.settings import TrainConfig

    folder = Path(tempfile.mkdtemp(prefix="classroom-uploads-"))
    csv = folder / "points.csv"
    csv.write_text("x1,x2,label\n" + "\n".join(f"{i % 7},{(i * 3) % 11},{i % 2}" for i in range(60)))
    model = folder / "model.json"
    state = training.new_state(TrainConfig(hidden=(5,)))
    training.step(state, 7)
    model.write_text(model_files.to_json(state))
    ok = {"csv": 0, "model": 0}
    servers = []
    for k in range(args.uploads):
        kind = "csv" if k % 2 == 0 else "model"
        context = browser.new_context()
        try:
            page = base.open_page(context, f"{room.url}/playground")
            page.wait_for_function(base.READY_JS, timeout=120_000, polling=500)
            if kind == "csv":
                page.locator(".st-key-pg_file input[type=file]").set_input_files(str(csv))
                page.wait_for_function("() => new URL(location.href).searchParams.get('dataset') === 'uploaded CSV'",
                                       timeout=60_000)
            else:
                page.locator(".st-key-pg_model_file input[type=file]").set_input_files(str(model))
                page.wait_for_function("() => new URL(location.href).searchParams.get('hidden') === '5'",
                                       timeout=60_000)
                page.wait_for_function(f"() => ({base.COUNTERS_JS})().step === 7", timeout=60_000)
            ok[kind] += page.locator('[data-testid="stException"]').count() == 0
            servers.append(_server(context))
        except Exception as err:  # noqa: BLE001 - a failed upload is a figure, not a crash
            print(f"upload {k} ({kind}) failed: {err!r}"[:300], flush=True)
        finally:
            context.close()
    return {"tried": args.uploads, "worked": ok["csv"] + ok["model"], **ok,
            "by_process": {s: servers.count(s) for s in sorted(set(servers))}, "load_average": _load()}


def _save_many(path: str, worker: int, count: int, bound: int, out) -> None:
    from explorer.playground.controller import Playground
    from explorer.playground.settings import TrainConfig
    from server.run_store import SQLiteRunStore

    store = SQLiteRunStore(path, max_bytes=bound)
    latencies, errors = [], []
    for i in range(count):
        try:
            pg = Playground(TrainConfig(seed=worker * 1000 + i), store=store, user=f"learner{worker}-{i % 5}")
            for _ in range(3):
                pg.step_once()  # saves
            t = time.perf_counter()
            pg.save()
            latencies.append(time.perf_counter() - t)
        except Exception as err:  # noqa: BLE001 - counted
            errors.append(repr(err))
    out.put((latencies, errors))
    store.close()


def part_store(args) -> dict:
    """200 runs saved by 4 processes (each run saved 5 times) into one SQLite file bounded at 1 MB (so runs go)."""
    from server.run_store import SQLiteRunStore

    with tempfile.TemporaryDirectory(prefix="classroom-store-") as folder:
        path, bound = str(Path(folder) / "runs.sqlite3"), 1 * MB
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        t0 = time.monotonic()
        workers = [context.Process(target=_save_many, args=(path, w, 50, bound, out)) for w in range(4)]
        for w in workers:
            w.start()
        results = [out.get(timeout=300) for _ in workers]
        for w in workers:
            w.join(timeout=60)
        elapsed = time.monotonic() - t0
        latencies = sorted(x for r in results for x in r[0])
        errors = [e for r in results for e in r[1]]
        store = SQLiteRunStore(path, max_bytes=bound)
        size, kept = store.size, len(store)
        store.close()
        files = sum(p.stat().st_size for p in Path(folder).iterdir())
        return {
            "runs": 200, "saves": 200 * 5, "seconds": round(elapsed, 1), "errors": len(errors),
            "database_is_locked": sum("locked" in e for e in errors), "bound_mb": bound / MB,
            "stored_mb": round(size / MB, 2), "runs_kept": kept, "files_on_disk_mb": round(files / MB, 2),
            "save_ms_p50_p95": [round(1000 * latencies[len(latencies) // 2], 1),
                                round(1000 * base.p95(latencies), 1)] if latencies else [],
            "load_average": _load(),
        }


def scenario_classroom(browser, args) -> dict:
    with tempfile.TemporaryDirectory(prefix="classroom-data-") as data:
        env = {"AUTOGRAD_EXPLORER_RUNS": f"sqlite:///{data}/runs.sqlite3"}
        result = {"load_average_start": _load()}
        print("classroom: store ...", flush=True)
        result["store"] = part_store(args)
        print("classroom: direct ...", flush=True)
        result["direct"] = part_direct(browser, args, env)
        print("classroom: balanced ...", flush=True)
        result["balanced"] = part_balanced(browser, args, env)
        return result


def summary(r: dict) -> list[str]:
    d, b = r["direct"], r["balanced"]
    f, u, s, st = b["faults"], b["uploads"], b["restart"], r["store"]
    return [
        f"1 process direct, {d['learners']} learners: frames/s min/median {d['frames_per_s_min_median']}, "
        f"CPU {d['process_cpu_percent']} % of a core, health p95 {d['health_p95_ms']} ms (load {d['load_average']})",
        f"2 processes behind HAProxy, {b['learners']} learners {b['learners_per_process']}: frames/s min/median "
        f"{b['frames_per_s_min_median']}, CPU {b['process_cpu_percent']} % of a core each, health p95 through the "
        f"balancer {b['health_p95_ms']} ms, each stayed on its process: {b['each_stayed_on_its_process']} "
        f"(load {b['load_average']})",
        f"kill -9 of one process ({f['learners_on_it']} learners): {f['played_again']} played again within "
        f"{f['seconds_to_play_again_max']} s, {f['same_run_id']} under the same run id, steps lost max/median "
        f"{f['steps_lost_max']}/{f['steps_lost_median']}, now on {f['now_on']} (load {f['load_average']})",
        f"uploads through the balancer: {u['worked']}/{u['tried']} worked (CSV {u['csv']}, model {u['model']}), "
        f"by process {u['by_process']} (load {u['load_average']})",
        f"restart of the whole class: {s['opened_their_run']}/{s['links']} run links opened their run "
        f"(load {s['load_average']})",
        f"store: {st['runs']} runs ({st['saves']} saves) by 4 processes in {st['seconds']} s, errors {st['errors']} "
        f"(locked {st['database_is_locked']}), {st['stored_mb']} MB kept of a {st['bound_mb']} MB bound "
        f"({st['runs_kept']} runs; files {st['files_on_disk_mb']} MB), save p50/p95 {st['save_ms_p50_p95']} ms "
        f"(load {st['load_average']})",
    ]
