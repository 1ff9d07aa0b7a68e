"""The Class page's parts, as Streamlit: open a class, the teacher's dashboard and posting, a learner's join and view.

Every read and write goes to the run store (explorer/classes/room.py); what cannot be done says so in words
(ClassRefused, StoreDown) and the page stays usable.
"""

from __future__ import annotations

import contextlib

import streamlit as st

from components.common.learner import learner_key
from explorer.classes import dashboard as class_dashboard
from explorer.classes import keys, page_data, room
from explorer.classes.room import ClassRefused, Post
from explorer.playground import snapshot as run_snapshot
from explorer.playground.controller import Upload
from explorer.playground.datasets import CLASSIFICATION
from explorer.practice import keys as practice_keys
from explorer.words import markdown_safe
from server.run_store import RunStore, StoreDown

FOLLOW_SECONDS = 3.0  # a learner's page looks for a newer post this often (one record read)


@contextlib.contextmanager
def said():
    """What a class cannot do, said as a message; the page goes on."""
    try:
        yield
    except ClassRefused as refused:
        st.error(markdown_safe(str(refused)), icon=":material/block:")
    except StoreDown as down:
        st.warning(markdown_safe(f"The class cannot be read or written just now: {down}. Try again in a moment; "
                                 "nothing you handed in is lost."), icon=":material/cloud_off:")


def _base() -> str:
    """The app's address as the browser sees it, for links to share."""
    url = getattr(st.context, "url", None) or ""
    return url.split("/class")[0].split("?")[0].rstrip("/")


def _problem() -> None:
    problem = st.session_state.pop(keys.PROBLEM, None)
    if problem:
        st.error(markdown_safe(problem), icon=":material/block:")


# ------------------------------------------------------------------------------------------ opening a class
def open_form(store: RunStore) -> None:
    def opened():
        try:
            made = room.open_class(store, st.session_state.get(keys.NAME, ""),
                                   days=float(st.session_state.get(keys.DAYS, 1.0)))
        except (ClassRefused, StoreDown) as err:
            st.session_state[keys.PROBLEM] = str(err)
            return
        st.session_state[keys.OPENED] = made.code
        st.query_params["code"], st.query_params["key"] = made.code, made.key

    _problem()
    st.subheader("Open a class")
    st.text_input("The class's name", key=keys.NAME, placeholder="Backprop, week 3", max_chars=room.NAME_CHARS)
    st.number_input("Lasts (days)", min_value=0.05, max_value=room.LONGEST_DAYS, value=1.0, step=0.5, key=keys.DAYS)
    st.button("Open the class", type="primary", on_click=opened)
    st.caption("You get two links: the learners' (a class code) and yours (with a secret key: the only way to the "
               "dashboard and to posting; keep it). Everything the class does is kept in the run store every server "
               "process shares, and ends with the class.")


# ------------------------------------------------------------------------------------------ the teacher
def teacher(store: RunStore, code: str, key: str) -> None:
    with said():
        info = room.as_teacher(store, code, key, who=learner_key())
        base = _base()
        st.subheader(info.name)
        if st.session_state.pop(keys.OPENED, None) == code:
            st.success("The class is open. Give the learners their link; keep yours (it holds the key and is shown "
                       "only now, and in this page's address).", icon=":material/school:")
        st.markdown("**The learners' link**")
        st.code(page_data.class_link(base, code), language=None)
        with st.expander("Your link (the teacher's: keep it secret)"):
            st.code(page_data.class_link(base, code, key), language=None)
        _problem()
        _post_form(store, info)
        live_dashboard(store, info)


def _post_form(store: RunStore, info: room.ClassInfo) -> None:
    def posted():
        kind = st.session_state.get(keys.POST_KIND, "practice")
        title = st.session_state.get(keys.POST_TITLE, "") or {"practice": "Practice exercise",
                                                               "challenge": "Playground challenge",
                                                               "program": "A program to explore"}[kind]
        if kind == "challenge":
            what = Post("challenge", title, settings={"dataset": st.session_state.get(keys.POST_DATASET, "spiral")},
                        target=f"test accuracy ≥ {st.session_state.get(keys.POST_TARGET, 95)} %, fewest parameters")
        else:
            what = Post(kind, title, program=st.session_state.get(keys.POST_PROGRAM, ""))
        try:
            room.post(store, info, what)
        except (ClassRefused, StoreDown) as err:
            st.session_state[keys.PROBLEM] = str(err)

    now = room.posted(store, info)
    with st.expander("Post to the class" + (f" (now: {now.kind}, “{now.title}”)" if now else ""), expanded=now is None):
        kind = st.radio("What", ["practice", "challenge", "program"], horizontal=True, key=keys.POST_KIND,
                        format_func={"practice": "a practice exercise", "challenge": "a Playground challenge",
                                     "program": "a program to explore"}.get)
        st.text_input("Title", key=keys.POST_TITLE, placeholder="The bias's gradient")
        if kind == "challenge":
            st.selectbox("Data set", list(CLASSIFICATION), key=keys.POST_DATASET)
            st.slider("Target test accuracy (%)", 50, 100, 95, key=keys.POST_TARGET)
        else:
            st.text_area("Program", key=keys.POST_PROGRAM, height=140,
                         placeholder="x = tensor([[1.0, 2.0]])\nW = randn(2, 3)\nloss = (x @ W).relu().sum()")
        st.button("Post", type="primary", on_click=posted)


def live_dashboard(store: RunStore, info: room.ClassInfo) -> None:
    @st.fragment(run_every=class_dashboard.REFRESH_SECONDS)
    def board():
        with said():
            work, runs = room.work_of(store, info, "work"), room.work_of(store, info, "runs")
            people = room.learners(store, info, work, runs)
            shown = class_dashboard.dashboard(people, work, runs, now=store.clock())
            st.html(page_data.dashboard_html(shown))
            if shown.leaderboard:
                st.html(page_data.leaderboard_html(shown))
                names = [r.name for r in shown.leaderboard]
                big = st.selectbox("On the big screen", ["the whole class", *names], key=keys.SHOW)
                only = None if big == "the whole class" else big
                st.plotly_chart(page_data.curves_figure(shown, st.context.theme.type == "dark", only),
                                width="stretch")

    board()


# ------------------------------------------------------------------------------------------ from the Practice page
def hand_in_practice(store: RunStore, code: str | None, answers: str, page: dict, hints: dict) -> None:
    """On the Practice page opened from a class (``?class=<code>``): hands the learner's check in to the class
    (once per change) and says so under the answers. The class and the learner are read once a session: later
    hand-ins need no read, so while the store is down they wait in this process and are written when it answers.
    A check that could not be handed in at all (the store down before the class was found) is tried again every
    RETRY_SECONDS until it is."""
    if not code:
        return
    handed = False
    with said():
        who = learner_key()
        known = st.session_state.get(keys.IN_CLASS)
        if known is not None and known[0] == code:
            info, you = known[1], known[2]
        else:
            info = room.find(store, code, who=who)
            you = room.member(store, info, who)
            if you is None:
                st.info(f"Join the class **{markdown_safe(info.name)}** to hand your answers in: "
                        f"[the class's page]({page_data.class_link(_base(), code)})", icon=":material/school:")
                return
            st.session_state[keys.VERSION] = room.handed_version(store, info, who)
            st.session_state[keys.IN_CLASS] = (code, info, you)
        work = page_data.practice_work(page, answers, hints)
        if st.session_state.get(keys.HANDED_IN) != (code, work):
            # NOTE: the version is the browser's time of the text's send (the editor's "at"): the store keeps the newest
            # hand-in whichever process replays one it kept while the store was down (server/run_store: put).
            sent = (st.session_state.get(practice_keys.EDITOR) or {}).get("at")
            version = room.next_version(st.session_state.get(keys.VERSION), sent)
            room.hand_in(store, info, who, work, joined=you, version=version)
            st.session_state[keys.VERSION] = version
            st.session_state[keys.HANDED_IN] = (code, work)
        handed = True
        if store.problem:
            st.caption("Your answers wait in this server until the run store answers; they are handed in then.")
        st.caption(f"Handed in to **{markdown_safe(info.name)}** as {markdown_safe(you.name)}: "
                   f"{work['solved']} of {work['total']} solved.")
    if not handed and store.problem:  # the store is down (not a refusal): try again
        _try_again()


RETRY_SECONDS = 3.0


def _try_again() -> None:
    """A fragment that reruns the page in RETRY_SECONDS, to hand in the check the store could not take."""
    @st.fragment(run_every=RETRY_SECONDS)
    def again():
        if st.session_state.get(keys.OWED):
            st.session_state[keys.OWED] = False
            st.rerun()
        st.session_state[keys.OWED] = True

    again()


# ------------------------------------------------------------------------------------------ a learner
def learner(store: RunStore, code: str) -> None:
    with said():
        who = learner_key()
        info = room.find(store, code, who=who)
        you = room.member(store, info, who)
        st.subheader(info.name)
        _problem()
        if you is None:
            _join_form(store, info, who)
            return
        st.caption(f"You are **{markdown_safe(you.name)}** in this class.")
        now = room.posted(store, info)
        st.session_state[keys.SEEN_POST] = None if now is None else now.posted
        follow_posts(store, info)
        if now is None:
            st.info("Nothing posted yet: what your teacher posts appears here as soon as they post it.",
                    icon=":material/hourglass:")
            return
        link = page_data.post_link(_base(), now, code)
        st.markdown(f"**{markdown_safe(now.title)}**" + (f" — {markdown_safe(now.target)}" if now.target else ""))
        label = {"practice": "Open the exercise", "challenge": "Open the challenge in the Playground",
                 "program": "Open the program in the Explorer"}[now.kind]
        st.link_button(label, link, type="primary")
        if now.kind == "challenge":
            _hand_in_run(store, info, who)


def follow_posts(store: RunStore, info: room.ClassInfo) -> None:
    """Every FOLLOW_SECONDS, the class's post (one record read); a newer one than the page shows reruns the page,
    which shows it (what the learner typed stays: widgets keep their values across a rerun)."""
    @st.fragment(run_every=FOLLOW_SECONDS)
    def follow():
        try:
            now = room.posted(store, info)
        except StoreDown:
            return  # the next look tries again; the page says nothing new
        if (None if now is None else now.posted) != st.session_state.get(keys.SEEN_POST):
            st.rerun()

    follow()


def _join_form(store: RunStore, info: room.ClassInfo, who: str) -> None:
    def joined():
        try:
            room.join(store, info, who, st.session_state.get(keys.JOIN_NAME, ""))
        except (ClassRefused, StoreDown) as err:
            st.session_state[keys.PROBLEM] = str(err)

    st.text_input("Your name, as the teacher will see it (a pseudonym is fine)", key=keys.JOIN_NAME,
                  max_chars=room.NAME_CHARS)
    st.button("Join", type="primary", on_click=joined)


def _hand_in_run(store: RunStore, info: room.ClassInfo, who: str) -> None:
    """The learner's latest Playground run (the one they saved or opened last, in any tab or process), handed in."""
    run_id = store.latest(who)
    blob = None if run_id is None else store.get(run_id)
    if blob is None:
        st.caption("Train a network in the Playground (the button above), then come back to hand in your run.")
        return
    try:
        figures = page_data.run_figures(run_snapshot.load(blob, Upload).state)
    except Exception as err:  # noqa: BLE001 - a snapshot this version cannot read: said, not raised
        st.warning(markdown_safe(f"Your latest run could not be read ({err}); train again in the Playground."))
        return
    accuracy = "–" if figures["test_accuracy"] is None else f"{figures['test_accuracy']:.1%}"
    st.caption(f"Your latest run: {figures['steps']} steps, {figures['parameters']} parameters on "
               f"{figures['dataset']}, test accuracy {accuracy}.")
    if st.button("Hand in my run"):
        room.hand_in_run(store, info, who, figures)
        st.success("Handed in." if not store.problem else "Kept in this server until the run store answers again: "
                   "it will be handed in then.", icon=":material/check:")
