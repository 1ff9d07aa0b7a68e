"""Initialisation & depth: a deep network's activations and gradients, layer by layer, before any training."""

import streamlit as st

from components.common.entry import through_app
from components.common.link_warnings import link_warnings, say_ignored

# NOTE: first, before the page's own imports (see components/common/entry.py).
through_app()

from components.common import session
from components.common.layout import header
from components.playground.settings_form import widget
from explorer import links
from explorer.depth_lab import figures, keys
from explorer.depth_lab import lab as depth_lab
from explorer.depth_lab.keys import setting as key
from explorer.depth_lab.lab import LAB_SETTINGS, LabConfig
from explorer.playground import catalogue
from explorer.words import markdown_safe
from server.sandbox import SandboxError

ss = st.session_state


header(
    "Initialisation & depth",
    "Why a deep network with the wrong first weights never starts learning: each layer at step 0, forward and back.",
    "Pick an initialisation, an activation, a width and a depth, and see, before any training, what each layer "
    "does to one batch of the data on the way forward (activations) and on the way back (gradients). Settings are "
    "in the sidebar and in the URL.",
    settings_aside=True,
)

# The URL holds the settings: read from a link (links.link_wins: one this session did not write), and on a
# first visit or back from another page (whose widgets Streamlit forgot: the last settings are kept in lab_config).
query = st.query_params.to_dict()
if links.link_wins(ss, "lab", query) or any(key(s.name) not in ss for s in LAB_SETTINGS):
    link_warnings(depth_lab.LINK_PARAMS)
    config, problems = LabConfig.from_query(query, base=ss.get(keys.CONFIG))
    for s in LAB_SETTINGS:
        ss[key(s.name)] = getattr(config, s.name)
    say_ignored(problems)

if keys.CUT in ss:  # the batch the last run cut to fit the limit, shown by its widget from now on
    ss[key("batch")], cut = ss.pop(keys.CUT)
    st.info(markdown_safe(cut[:1].upper() + cut[1:] + "."), icon=":material/compress:")

with st.sidebar:
    for section in ("Network", "Data"):
        st.header(section)
        for s in LAB_SETTINGS:
            if s.section == section:
                widget(s, s.options(""), key=key(s.name))

config, cut = depth_lab.fitted({s.name: ss[key(s.name)] for s in LAB_SETTINGS})
if cut:
    ss[keys.CUT] = config.batch, cut
    st.rerun()
ss[keys.CONFIG] = config
wanted = config.to_query()
if query != wanted:
    st.query_params.from_dict(wanted)
links.wrote(ss, "lab", wanted)

try:
    result = session.sandboxed(depth_lab.analyse, config)
except SandboxError as err:
    st.error(markdown_safe(err.message))
    st.stop()

with st.container(border=True):
    st.markdown(f"**{markdown_safe(config.init)}** · {markdown_safe(catalogue.INITS[config.init].note)}")
    st.markdown("\n".join(f"- {markdown_safe(sentence)}" for sentence in depth_lab.findings(result)))

spread, gradient = st.columns(2)
spread.plotly_chart(figures.layer_bars(result, "spread"), width="stretch", key=keys.SPREAD_CHART)
gradient.plotly_chart(figures.layer_bars(result, "gradient"), width="stretch", key=keys.GRADIENT_CHART)

every, one = st.columns(2)
with every:
    st.plotly_chart(figures.histogram_figure(result), width="stretch", key=keys.HISTOGRAMS)
with one:
    if config.depth > 1:
        ss[key("layer")] = min(ss.get(key("layer"), config.depth), config.depth)
        layer = st.slider("Layer to look at", 1, config.depth, key=key("layer"))
    else:
        layer = 1
    st.plotly_chart(figures.layer_histogram(result, layer), width="stretch", key=keys.LAYER_CHART)

st.markdown("**Every layer's numbers** (red: a gradient under 1 % or over 100 times the last layer's, or most "
            "activations saturated or dead)")
st.html(figures.layer_table_html(result))
