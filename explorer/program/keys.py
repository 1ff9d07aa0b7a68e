"""The program pages' session keys (the Explorer and the Stepper, and what the race on its own program and the
Playground's "open in the Explorer" share with them), declared once: see explorer/keys.py."""

from __future__ import annotations

# --- shared by the program pages
PROGRAM = "program"  # the program's text, the same on every page that shows one (link.sync_program)
POKED = "poked"  # the poked values: ((input name, value), ...), normal for PROGRAM (poke.sync)
POKED_PROGRAM = "_poked_program"  # the program POKED belongs to
POKE_VERSION = "poke_version"  # grows when the values are set other than by a slider: the sliders follow it
POKE_ACTIVE = "poke_active"  # the input whose slider was moved last (its pictures are shown)
POKE_PREVIOUS = "poke_previous"  # the one before it
POKE_ANSWERED = "poke_answered"  # the last slider move the browser view has had an answer for
GRAPH_OPTIONS = "graph_options"  # the graph view's options (pan and zoom), kept from page to page
AD_MODE = "ad_mode"  # "reverse" or "forward"
AD_V = "ad_v"  # forward mode's direction v, as its text
COST_LAB = "cost_lab"  # the cost lab's sizes, kept while its sliders are not drawn
COST_LAB_CHART = "cost_lab_chart"

# --- the Explorer
EDITOR = "explorer_editor"  # the program's text area
PRESET = "explorer_preset"
NODE = "explorer_node"  # the inspector's node box
PICKED = "explorer_picked"  # the node clicked or chosen, shown in the inspector
SELECT_SEQ = "explorer_select_seq"  # grows with each pick from the node box: the graph selects the node
TAB = "explorer_tab"
CURVATURE_DIRECTION = "explorer_curvature_direction"  # the Curvature tab's v: random, ones or basis
CURVATURE_ELEMENT = "explorer_curvature_element"  # ... and for basis, which input number
CURVATURE_KEPT = "explorer_curvature_kept"  # both, kept while the tab's widgets are not drawn
CURVATURE_HESSIAN = "explorer_curvature_hessian"  # the Hessian's heatmap
SATURATION_SCALE = "explorer_saturation_scale"  # the saturation panel's logit scale
WHOLE_RUN = "explorer_whole_run"  # the next run evaluates the page whole (not the sliders' fragment only)
SETTLED = "explorer_settled"  # the poked values this page run evaluated
INTERVENTIONS = "explorer_interventions"  # the applied interventions: a tuple of intervene.Intervention
INTERVENE_KIND = "explorer_intervene_kind"  # the intervention panel's choice of kind
LAST_GOOD = "explorer_last_good"  # the last program that ran, shown while the editor's does not
GRAPH = "explorer_graph"  # the graph view
POKE = "explorer_poke"  # the sliders' view
JACOBIAN = "explorer_jacobian"
BODY = "explorer_body"
DOCK = "explorer_dock"  # the tabs beside the graph: the program, the check, the inspector, the export, the cost
INSPECTING = "explorer_inspecting_"  # + a node's id: the inspector's container while it shows that node
RESULTS = "explorer_results"  # the prefix of the three below: a stale run dims them by it
RESULTS_GRAPH = "explorer_results_graph"
RESULTS_TAB = "explorer_results_tab"
RESULTS_VERDICT = "explorer_results_verdict"  # the check's verdict under the editor
BACKWARD = "explorer_backward"  # "Show the backward as a graph" (issue 32; the URL's backward=1)
BACKWARD_AGAIN = "explorer_backward_again"  # the grad to differentiate again ('' for none; the URL's again=)
BACKWARD_SECOND = "explorer_backward_second"  # the second-order grads' container
BACKWARD_PICKED = "explorer_backward_picked"  # (program, again, box): the backward graph's box clicked or chosen
BACKWARD_DRAWING = "explorer_backward_drawing"  # (program, again) of the backward graph drawn
BACKWARD_NODE = "explorer_backward_node"  # ... the inspector's box of them, for keyboard users
BACKWARD_DOT = "explorer_backward_dot"  # the Export tab's downloads of the backward graph
BACKWARD_SVG = "explorer_backward_svg"
MEMORY_EVERY = "explorer_memory_every"  # the Memory tab's slider: checkpoints every k operations
MEMORY_VIEW = "explorer_memory_view"  # the Memory tab's timeline

# --- the Stepper
STEPPER_GRAPH = "stepper_graph"  # the graph view, with the step it shows
STEPPER_POKE = "stepper_poke"
STEPPER_POS = "stepper_pos"  # the step shown
STEPPER_START = "stepper_start"  # the step the view starts at on this run
STEPPER_REPORTED = "stepper_reported"  # this run was the view's: it knows its step
STEPPER_PROGRAM = "stepper_program"  # (program, direction) the steps are of
STEPPER_SETTLED = "stepper_settled"  # the poked values this page run stepped
STEPPER_AGAIN = "stepper_again"  # the grad whose backward is walked ('' for the program's; the URL's again=, issue 32)
JACOBIANS_ASKED = "stepper_jacobians_asked"  # the nodes whose Jacobians the view asked for
JACOBIANS_FOR = "stepper_jacobians_for"  # the program those are of


def inspecting(node_id: int) -> str:
    """The inspector's container while it shows node ``node_id`` (web/pending.js waits for it after a click)."""
    return f"{INSPECTING}{int(node_id)}"


def element(node_id: str) -> str:
    """The Explorer's "work out another element" box for one node."""
    return f"explorer_element_{node_id}"


def cost_size(name: str) -> str:
    """One of the cost lab's size sliders."""
    return f"cost_lab_{name}"


def modes(page: str) -> str:
    """The container of a page's mode switch (reverse or forward, and forward's v)."""
    return f"{page}_modes"


def mode_switch(page: str) -> tuple[str, str, str]:
    """A page's widgets of the mode switch: the mode, forward's direction v, and v's element."""
    return f"{page}_ad_mode", f"{page}_ad_v", f"{page}_ad_element"


def pictures_for(key: str) -> str:
    """The program whose pictures the sliders' view ``key`` has (it asks again for a new one)."""
    return f"{key}_pictures_for"


def intervene_amount(kind: str) -> str:
    """The intervention panel's amount for one kind of intervention (each keeps its own)."""
    return f"explorer_intervene_amount_{kind}"


def intervene_remove(name: str) -> str:
    """The intervention panel's button that removes the intervention on tensor ``name``."""
    return f"explorer_intervene_remove_{name}"
