"""The one figure style (compass.plotting): reproducible files, labelled axes, the lead panel."""

from __future__ import annotations

import math

import pandas as pd
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")

from compass import plotting as P  # noqa: E402


def _means() -> pd.DataFrame:
    rows = [{"trace": t, "scheduler": s, "metric": m, "value": v}
            for t in ("venus", "gfs") for s, v in (("compass-abs", 1.0), ("gfs", 1.2))
            for m in ("afr", "ajct", "agu")]
    return pd.DataFrame(rows)


def test_two_saves_of_the_same_figure_are_byte_identical(tmp_path):
    """PDFs carry no creation date, so a rerun of the pipeline rewrites the same bytes."""
    first = P.save(P.dot_grid(_means(), "trace", "T", "SYNTHETIC"), tmp_path / "a", "f")
    second = P.save(P.dot_grid(_means(), "trace", "T", "SYNTHETIC"), tmp_path / "b", "f")
    for one, two in zip(first, second):
        assert one.read_bytes() == two.read_bytes(), one.name
    assert b"CreationDate" not in first[1].read_bytes()  # else reruns a second apart differ


def test_every_metric_axis_says_which_way_is_better():
    for metric in ("afr", "ajct", "agu", "nsif", "sif_gpu", "sif_panel", "pause_per_job"):
        assert "is better" in P.LABELS[metric], metric
    assert P.LABELS["eta"].startswith("\u03b7")


def test_the_lead_panel_draws_each_group_with_its_interval():
    leads = pd.DataFrame([
        {"trace": "gfs", "metric": "ajct", "lead": 10.0, "ci_low": 5.0, "ci_high": 15.0,
         "n": 9, "baseline_mean": 1000.0, "strongest_baseline": "fft"},
        {"trace": "venus", "metric": "ajct", "lead": -4.0, "ci_low": math.nan,
         "ci_high": math.nan, "n": 1, "baseline_mean": 400.0, "strongest_baseline": "mcg"},
    ])
    fig = P.lead_panels(leads, "trace", "leads", "SYNTHETIC", metrics=("ajct",))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["GFS", "Venus"]
    bars = [c for c in ax.containers]  # the errorbar of the sample with an interval
    assert len(bars) == 1
    lines = bars[0].lines[2][0].get_segments()[0]  # the horizontal bar, in seconds
    assert [round(x, 6) for x, _ in lines] == [5.0, 15.0]
    assert "right: COMPASS-ABS better" in ax.get_xlabel()  # two lines: no overlap


# ---------------------------------------------------------------- figures that do not mislead
from matplotlib.text import Text  # noqa: E402

from compass.experiments.config import EXTENSION_SCHEDULERS, PAPER_SCHEDULERS  # noqa: E402
from compass.experiments.paper_values import PaperValue  # noqa: E402

ALL = (*PAPER_SCHEDULERS, *EXTENSION_SCHEDULERS)


def _with_far_extension(groups=("venus", "gfs")) -> pd.DataFrame:
    """Paper schedulers at 1.20-1.40 M s AJCT, our extension at 0.2 M s (as on GFS)."""
    rows = []
    for g in groups:
        for i, s in enumerate(ALL):
            far = s in EXTENSION_SCHEDULERS
            rows += [{"trace": g, "scheduler": s, "metric": "ajct",
                      "value": 200_000.0 + i if far else 1_200_000.0 + 25_000 * i},
                     {"trace": g, "scheduler": s, "metric": "agu", "value": 0.5 + 0.01 * i}]
    return pd.DataFrame(rows)


def _drawn_points(ax) -> list[tuple[float, float]]:
    """Every scatter point of an axes, in data coordinates."""
    return [tuple(p) for c in ax.collections if hasattr(c, "get_offsets")
            for p in c.get_offsets()]


def test_the_extension_does_not_squash_the_paper_schedulers_and_stays_visible():
    means = _with_far_extension()
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("ajct",))
    paper = means[means["scheduler"].isin(PAPER_SCHEDULERS) & (means["metric"] == "ajct")]
    paper = paper["value"]
    for ax in fig.axes:
        low, high = ax.get_xlim()
        assert low <= paper.min() and paper.max() <= high
        assert high - low < 1.5 * (paper.max() - paper.min())  # the paper's span fills it
        ys = {round(y, 6) for _, y in _drawn_points(ax)}
        assert ys == set(range(len(ALL)))  # every scheduler, the extension's included
        notes = [t.get_text() for t in ax.texts]
        assert sum("off scale" in t for t in notes) == len(EXTENSION_SCHEDULERS)
        assert any("200.0k" in t for t in notes)


def test_a_line_grid_keeps_the_paper_axis_and_marks_the_extension_at_its_edge():
    means = _with_far_extension().assign(cost=1.0)
    means = pd.concat([means, means.assign(cost=10.0)])
    fig = P.line_grid(means, "cost", "trace", "T", "SYNTHETIC", metrics=("ajct",))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [P.display(s) for s in ALL]
    for ax in fig.axes:
        low, high = ax.get_ylim()
        assert low > 1_000_000  # the 0.2 M s lines do not stretch it
        assert sum("off scale" in t.get_text() for t in ax.texts) == len(EXTENSION_SCHEDULERS)


def test_every_scheduler_of_a_relative_two_stage_grid_has_its_own_point():
    """The openb packing: nine schedulers within 0.1 % of each other, two stages; each gets
    a distinct point, and the axis shows differences from COMPASS-ABS in % of its value."""
    rows = []
    for share in (0.27, 0.59):
        for stage in ("at the first rejection", "at saturation"):
            for i, s in enumerate(["compass-abs", "gfs", "fgd", "cafgd", "mcg", "fft", "drr",
                                   *EXTENSION_SCHEDULERS]):
                value = 1.0 if stage == "at saturation" else 0.999 + (0.0007 if i else 0.0)
                rows.append({"multi_gpu_share": share, "stage": stage, "scheduler": s,
                             "metric": "allocated_share", "value": value})
    fig = P.dot_grid(pd.DataFrame(rows), "multi_gpu_share", "T", "REAL",
                     metrics=("allocated_share",), relative=True, stage="stage")
    for ax in fig.axes:
        points = _drawn_points(ax)
        assert len(points) == len(set(points)) == 9 * 2
        assert "% of its value" in ax.get_xlabel()
        xs = sorted({round(x, 6) for x, _ in points})
        assert xs == [0.0, round(0.0007 / 0.999 * 100, 6)]  # the gap as it is: 0.07 %
    assert "hollow: at saturation" in " ".join(t.get_text() for t in fig.texts)


def test_a_lead_over_a_zero_baseline_is_drawn_as_an_absolute_difference():
    leads = pd.DataFrame([
        {"trace": "venus", "metric": "afr", "lead": 0.016, "ci_low": 0.009, "ci_high": 0.023,
         "n": 6, "baseline_mean": 0.033, "strongest_baseline": "fft"},
        {"trace": "physmix", "metric": "afr", "lead": -0.011, "ci_low": -0.018,
         "ci_high": -0.006, "n": 3, "baseline_mean": 0.0, "strongest_baseline": "gfs"},
    ])
    fig = P.lead_panels(leads, "trace", "leads", "SYNTHETIC", metrics=("afr",))
    ax = fig.axes[0]
    assert len(ax.containers) == 2  # Phys-Mix's lead is kept
    centres = sorted(round(float(c.lines[0].get_xdata()[0]), 6) for c in ax.containers)
    assert centres == [-1.1, 1.6]  # points of the node share
    zero = [line for line in ax.lines if list(line.get_xdata()) == [0, 0]][0]
    for text in ax.texts:  # the row notes sit on a white box above the zero line
        assert text.get_bbox_patch().get_facecolor()[:3] == (1.0, 1.0, 1.0)
        assert text.get_zorder() > zero.get_zorder()


def test_the_paper_values_are_drawn_and_labelled_paper():
    means = _with_far_extension(("gfs",))
    paper = [PaperValue("f", "agu", "compass-abs", low=0.957),
             PaperValue("f", "ajct", "lead", low=135.0, high=135.0, group="gfs"),
             PaperValue("f", "ajct", "lead", low=999.0, high=999.0, group="venus")]
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("ajct", "agu"), paper=paper)
    ajct, agu = fig.axes
    star = [c for c in ajct.collections if c.get_label() == P.PAPER]
    assert len(star) == 1  # the venus lead does not apply to the GFS column
    best = means[(means["metric"] == "ajct") & means["scheduler"].isin(P.BASELINES)]["value"]
    assert star[0].get_offsets()[0][0] == best.min() - 135.0
    assert agu.get_xlim()[1] >= 0.957  # the paper's floor is on the axis
    assert any(t.get_text() == "paper >= 0.957" for t in agu.texts)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["paper: stated value", "paper: stated bound"]
    leads = pd.DataFrame([{"trace": "gfs", "metric": "ajct", "lead": -9.7, "ci_low": -20.0,
                           "ci_high": 20.0, "n": 9, "baseline_mean": 1.2e6,
                           "strongest_baseline": "fft"}])
    fig = P.lead_panels(leads, "trace", "leads", "SYNTHETIC", metrics=("ajct",), paper=paper)
    marks = [c for c in fig.axes[0].collections if c.get_label() == P.PAPER]
    assert [tuple(m.get_offsets()[0]) for m in marks] == [(135.0, 0.0)]


def _overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of axis and tick labels whose boxes overlap, and labels that run into another
    panel: what a reader sees as labels over labels."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = []
    for ax in fig.axes:
        ticks = [t.label1 for axis in (ax.xaxis, ax.yaxis) for t in axis.get_major_ticks()
                 if min(axis.get_view_interval()) <= t.get_loc() <= max(axis.get_view_interval())]
        texts = [ax.xaxis.label, ax.yaxis.label, *ticks]  # the ticks drawn: inside the view
        labels += [(ax, t, t.get_window_extent(renderer)) for t in texts
                   if isinstance(t, Text) and t.get_visible() and t.get_text()]
    found = []
    for i, (ax, text, box) in enumerate(labels):
        for other in fig.axes:
            if other is not ax and box.overlaps(other.get_window_extent(renderer)):
                found.append((text.get_text(), "another panel"))
        for ax2, text2, box2 in labels[i + 1:]:
            if ax2 is not ax and box.overlaps(box2):
                found.append((text.get_text(), text2.get_text()))
    return found


@pytest.mark.parametrize("columns", [2, 4])
def test_no_label_runs_into_another_panel_or_label(columns):
    long = ("allocated_share", "partial_nodes", "sif_panel")
    rows = [{"share": c, "scheduler": s, "metric": m, "value": 0.1 * i + c, "x": x}
            for c in range(columns) for i, s in enumerate(ALL) for m in long for x in (1, 2)]
    frame = pd.DataFrame(rows)
    assert _overlaps(P.dot_grid(frame, "share", "T", "REAL", metrics=long)) == []
    assert _overlaps(P.line_grid(frame, "x", "share", "T", "REAL", metrics=long)) == []


def test_an_extension_value_near_the_paper_range_stays_on_the_axis():
    """Off scale only where including it would more than double the axis."""
    means = _with_far_extension(("gfs",))
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("agu",))
    ax = fig.axes[0]
    agu = means[means["metric"] == "agu"]["value"]
    low, high = ax.get_xlim()
    assert low <= agu.min() and agu.max() <= high  # the extension's 0.58, 0.59 included
    assert not [t for t in ax.texts if "off scale" in t.get_text()]


def test_off_scale_notes_at_the_same_edge_do_not_overlap():
    means = _with_far_extension().assign(cost=1.0)
    fig = P.line_grid(means, "cost", "trace", "T", "SYNTHETIC", metrics=("ajct",))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        boxes = [t.get_window_extent(renderer) for t in ax.texts if "off scale" in t.get_text()]
        assert len(boxes) == 2 and not boxes[0].overlaps(boxes[1])


def test_a_time_series_label_stays_beside_its_panel_and_the_paper_range_is_drawn():
    rows = [{"window": w, "scheduler": s, "hour": h, "nsif": v}
            for w in ("paper", "busiest") for s, v in (("compass-abs", 1), ("gfs", 6))
            for h in (21.0, 22.5)]
    paper = [PaperValue("fig5_nsif", "nsif", "baselines", 60.0, 80.0, "paper", "6.6")]
    fig = P.time_series(pd.DataFrame(rows), "nsif", "T", "SYNTHETIC", bound=2,
                        panels={"paper": "paper window", "busiest": "busiest window"},
                        paper=paper)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    first, second = fig.axes
    label, panel = first.yaxis.label.get_window_extent(renderer), first.get_window_extent(renderer)
    assert panel.y0 <= label.y0 and label.y1 <= panel.y1  # no longer than its panel
    assert [c.get_label() for c in first.collections].count(P.PAPER) == 1
    assert [c.get_label() for c in second.collections].count(P.PAPER) == 0  # paper window only
    assert "paper: stated range" in [t.get_text() for t in fig.legends[-1].get_texts()]


def test_a_line_grid_draws_the_paper_bound_and_names_it_in_its_legend():
    means = pd.DataFrame([{"trace": "gfs", "scheduler": s, "metric": "pause_per_job",
                           "cost": c, "value": v * c}
                          for s, v in (("compass-abs", 0.5), ("fft", 0.2)) for c in (1, 10)])
    paper = [PaperValue("f", "pause_per_job", "compass-abs", high=1.0, where="6.5")]
    fig = P.line_grid(means, "cost", "trace", "T", "SYNTHETIC", metrics=("pause_per_job",),
                      paper=paper)
    ax = fig.axes[0]
    (bar,) = [c for c in ax.collections if c.get_label() == P.PAPER]
    assert bar.get_segments()[0][:, 1].tolist() == [1.0, 1.0]  # at 1 s, across the panel
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["COMPASS-ABS", "FFT", "paper: stated bound"]


# ------------------------------------------------------------ a reviewer's first screen
def _rgb(hex_colour: str) -> tuple[int, ...]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def test_every_scheduler_colour_is_distinct_from_every_other():
    """No two schedulers of the figures share a colour or one near it (COMPASS-ABS's
    vermillion and DRR's orange did): at least 70 apart in RGB."""
    names = (*PAPER_SCHEDULERS, *EXTENSION_SCHEDULERS)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            distance = math.dist(_rgb(P.color(a)), _rgb(P.color(b)))
            assert distance >= 70, (a, b, P.color(a), P.color(b), round(distance))


def test_the_lead_panel_axis_covers_every_interval():
    """An interval far beyond the others (a stalled baseline's AJCT) is not cut at the
    panel's edge, on the linear axes and on AJCT's symmetric-log axis."""
    leads = pd.DataFrame([
        {"trace": t, "metric": m, "lead": lead, "ci_low": low, "ci_high": high, "n": 15,
         "baseline_mean": 1000.0, "strongest_baseline": "fft"}
        for t, (lead, low, high) in (("venus", (-121.9, -228784.0, 11.5)),
                                     ("gfs", (-8.0, -16.0, -1.0)))
        for m in ("ajct", "agu")])
    fig = P.lead_panels(leads, "trace", "leads", "SYNTHETIC", metrics=("ajct", "agu"))
    for ax, scale in zip(fig.axes, (1.0, 100.0)):
        low, high = ax.get_xlim()
        assert low <= -228784.0 * scale and high >= 11.5 * scale, (low, high)


def test_a_stated_lead_reads_in_points_in_both_figures():
    """The paper's AGU lead of 0.7 points reads "0.7 pts" beside the dots too, as in the
    lead panel (it read "0.007")."""
    mark = PaperValue(figure="fig1_overall", metric="agu", who="lead", low=0.007,
                      high=math.nan, group="venus")
    means = pd.DataFrame([{"trace": "venus", "scheduler": s, "metric": "agu",
                           "value": 0.9 + 0.001 * i} for i, s in enumerate(PAPER_SCHEDULERS)])
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("agu",), paper=[mark])
    texts = [t.get_text() for t in fig.findobj(Text)]
    assert "paper lead >= 0.7 pts" in texts and not any("0.007" in t for t in texts)


def test_a_line_hidden_under_another_says_so_in_the_legend():
    """fig6: schedulers whose lines are identical are named with the one they hide under."""
    hours = [9.0, 10.0, 11.0]
    timelines = pd.DataFrame([{"hour": h, "scheduler": s, "gpu_util": v, "window": w}
                              for s, vals in (("compass-abs", (0.9, 0.95, 0.97)),
                                              ("gfs", (0.8, 0.8, 0.85)),
                                              ("fgd", (0.8, 0.8, 0.85)))
                              for h, v in zip(hours, vals) for w in ("paper", "busiest")])
    fig = P.time_series(timelines, "gpu_util", "Fig. 6", "SYNTHETIC " * 30,
                        panels={"paper": "the paper's window", "busiest": "the busiest"})
    labels = [t.get_text() for ax in fig.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert "FGD (= GFS, hidden under it)" in labels and "GFS" in labels
    title = fig._suptitle.get_text()
    assert title.count("\n") <= 3  # the data label wraps to the figure's width
    width, height = fig.get_size_inches()
    assert width / height < 3  # panels of about 1.3:1 each, not 4.6:1


def test_a_panel_without_values_says_why_and_names_are_display_names():
    """fig_nvl72: SIF at panel level is undefined on one-panel domains (K = 1): the panel
    says so instead of showing empty axes; schedulers appear by their display names."""
    means = pd.DataFrame([{"platform": p, "scheduler": s, "metric": m,
                           "value": math.nan if (p == "K=1" and m == "sif_panel") else 0.1}
                          for p in ("K=1", "K=2") for s in ("compass-abs-hier", "gfs")
                          for m in ("sif_gpu", "sif_panel")])
    fig = P.dot_grid(means, "platform", "Appendix D", "SYNTHETIC",
                     metrics=("sif_gpu", "sif_panel"))
    texts = [t.get_text() for t in fig.findobj(Text)]
    assert texts.count("no value: not defined here") == 1
    assert "COMPASS-ABS (hierarchical)" in texts and "compass-abs-hier" not in texts
    empty = [ax for ax in fig.axes if any(t.get_text() == "no value: not defined here"
                                          for t in ax.texts)]
    assert len(empty) == 1 and list(empty[0].get_xticks()) == []  # no scale without a value


def test_one_stalled_baseline_does_not_squash_the_others():
    """fig_openb_replay: MCG at 2 M s AJCT beside the rest at 20-40 k s: a log axis, on
    which COMPASS-ABS and FFT stay apart; a narrow spread keeps its linear axis."""
    def means(mcg: float) -> pd.DataFrame:
        values = {"compass-abs": 38_399.0, "fft": 20_000.0, "mcg": mcg, "gfs": 30_000.0}
        return pd.DataFrame([{"trace": "openb", "scheduler": s, "metric": "ajct", "value": v}
                             for s, v in values.items()])
    wide = P.dot_grid(means(2_000_000.0), "trace", "T", "REAL", metrics=("ajct",)).axes[0]
    assert wide.get_xscale() == "log" and "log axis" in wide.get_xlabel().replace("\n", " ")
    low, high = wide.get_xlim()
    assert low < 20_000.0 and high > 2_000_000.0
    narrow = P.dot_grid(means(45_000.0), "trace", "T", "REAL", metrics=("ajct",)).axes[0]
    assert narrow.get_xscale() == "linear"


def test_table3_bars_carry_the_papers_top1_shares():
    """fig_wcc_coverage: a star at the paper's top-1 share on each metric's Total bar."""
    table = pd.DataFrame([{"trace": "venus", "bucket": b, "pairs": 5, "share of pairs": 1.0,
                           "afr top-1 share": 0.9, "ajct top-1 share": 0.7,
                           "agu top-1 share": 0.6} for b in ("1.0", "Total")])
    paper = [PaperValue(figure="fig_wcc_coverage", metric=m, who="compass-abs", low=v, high=v,
                        group="venus") for m, v in (("afr", 0.941), ("ajct", 0.803),
                                                    ("agu", 0.819))]
    fig = P.bucket_bars(table, "Table 3", "SYNTHETIC", paper=paper)
    stars = sorted(round(float(y), 3) for x, y in _drawn_points(fig.axes[0]))
    assert stars == [0.803, 0.819, 0.941]
    assert any(t.get_text() == "paper: stated value" for t in fig.findobj(Text))


def test_an_outside_schedulers_card_is_drawn_without_a_prior_registry_call():
    """A plugin named only in COMPASS_PLUGINS (a pipeline job's environment) gets its card's
    display name and colour from the first figure call, not a spare colour: in a fresh
    interpreter, before anything lists the schedulers."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    src = root / "examples" / "compass-worst-fit" / "src"
    code = ("from compass import plotting as P; "
            "print(P.display('worst-fit'), P.color('worst-fit'), sep='|')")
    env = {**os.environ, "COMPASS_PLUGINS": "compass_worst_fit",
           "PYTHONPATH": os.pathsep.join([str(root), str(src)])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=root, timeout=300)
    assert out.stdout.strip() == "Worst-fit (plugin)|#000000", out.stderr


# ------------------------------------------------------------ intervals, edges and bounds
def _with_intervals() -> pd.DataFrame:
    """Fig. 1-like means with intervals: one baseline's interval far wider than the rest,
    AGU near 1 (as on Phys-Mix), five samples each but FFT's AGU (four) and AFR (none)."""
    rows = []
    for i, s in enumerate(ALL):
        wide = s == "mcg"
        for metric, value, half in (("ajct", 60_000.0 + 500 * i, 30_000.0 if wide else 900.0),
                                    ("agu", 0.87 + 0.01 * i, 0.05 if wide else 0.004)):
            rows.append({"trace": "physmix", "scheduler": s, "metric": metric, "value": value,
                         "samples": 4 if (s, metric) == ("fft", "agu") else 5,
                         "ci_low": value - half, "ci_high": value + half})
    rows.append({"trace": "physmix", "scheduler": "fft", "metric": "afr", "value": math.nan,
                 "samples": 0, "ci_low": math.nan, "ci_high": math.nan})  # not drawn
    return pd.DataFrame(rows)


def _bars(ax) -> list[tuple[float, float, float]]:
    """Every error bar of an axes as (low, high, row)."""
    out = []
    for container in ax.containers:
        (segment,) = container.lines[2][0].get_segments()
        out.append((float(segment[0][0]), float(segment[1][0]), float(segment[0][1])))
    return out


def test_every_dot_carries_its_interval_and_the_axis_holds_them_and_the_paper_marks():
    """fig1_overall: a bar in each dot's colour from ci_low to ci_high, none cut at the
    panel's edge (the widest included), the paper's stated lead on the axis, n in the
    column's title and the bars explained under the panels."""
    means = _with_intervals()
    paper = [PaperValue("fig1_overall", "ajct", "lead", low=736.0, group="physmix")]
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("ajct", "agu"), paper=paper)
    for ax, metric in zip(fig.axes, ("ajct", "agu")):
        part = means[means["metric"] == metric].set_index("scheduler")
        bars = _bars(ax)
        assert len(bars) == len(ALL)
        low, high = ax.get_xlim()
        names = P.order(part.index)
        for left, right, row in bars:  # on its scheduler's row
            name = names[round(row)]
            assert (left, right) == pytest.approx((part.loc[name, "ci_low"],
                                                   part.loc[name, "ci_high"]))
            assert low < left and right < high, (metric, name)
        marks = [x for c in ax.collections if c.get_label() == P.PAPER
                 for x in (c.get_segments()[0][:, 0] if hasattr(c, "get_segments") else [])]
        assert all(low < x < high for x in marks)
    assert len([c for c in fig.axes[0].collections if c.get_label() == P.PAPER]) == 1
    assert fig.axes[0].get_title() == "Phys-Mix (n = 4-5)"  # FFT's AGU over 4 samples
    assert any("95 %" in t.get_text() for t in fig.texts)
    # unpaired bars: the note says that an overlap is no tie (the claims pair the samples)
    assert any("overlap are no tie" in " ".join(t.get_text().split()) for t in fig.texts)


def test_a_stated_value_no_measure_can_take_is_an_arrow_at_the_edge_with_its_value():
    """Phys-Mix's AGU lead of 16 points over a baseline at 0.97 would put AGU at 1.13: it is
    not drawn outside the axis without notice, nor does it stretch the axis past 1; an arrow
    sits at the right edge, its value written beside it in points, as the leads figure
    writes it."""
    means = _with_intervals()
    mark = PaperValue("fig1_overall", "agu", "lead", low=0.16, group="physmix")
    fig = P.dot_grid(means, "trace", "T", "SYNTHETIC", metrics=("agu",), paper=[mark])
    ax = fig.axes[0]
    best = means[(means["metric"] == "agu") & means["scheduler"].isin(P.BASELINES)]["value"]
    stated = best.max() + 0.16
    low, high = ax.get_xlim()
    assert high < stated
    notes = [t.get_text() for t in ax.texts if "off scale" in t.get_text()]
    assert notes == [f"paper lead >= 16 pts: AGU >= {stated:,.4g} (off scale)"]
    arrows = [c for c in ax.collections if c.get_offsets().shape == (1, 2)
              and c.get_offsets()[0][0] == high and not c.get_clip_on()]
    assert len(arrows) == 1
    assert not [c for c in ax.collections if c.get_label() == P.PAPER]  # not drawn off axis


def test_a_bound_is_a_labelled_dotted_line_inside_its_panel_only():
    means = pd.DataFrame([{"platform": p, "scheduler": s, "metric": "sif_gpu", "value": v}
                          for p in ("a", "b")
                          for s, v in (("compass-abs-hier", 0.01), ("gfs", 0.05))])
    fig = P.dot_grid(means, "platform", "T", "SYNTHETIC", metrics=("sif_gpu",),
                     bounds={("a", "sif_gpu"): (0.2, "Thm 2: 2/N_p = 2/10 = 0.2")},
                     note="dotted: the bound")
    first, second = fig.axes
    (line,) = [line for line in first.lines if line.get_linestyle() == ":"]
    assert list(line.get_xdata()) == [0.2, 0.2]
    assert first.get_xlim()[1] > 0.2  # on the axis, not beyond it
    assert "Thm 2: 2/N_p = 2/10 = 0.2" in [t.get_text() for t in first.texts]
    assert not [line for line in second.lines if line.get_linestyle() == ":"]
    assert "dotted: the bound" in [t.get_text() for t in fig.texts]
