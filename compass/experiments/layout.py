"""Where the pipeline puts things, and which products each notebook makes.

One place for paths, so that the Snakefile, the notebooks, the report and the smoke test
agree. Results of a profile live under ``results/<profile>/``; figures, tables and the
report go where the profile's ``outputs`` say (``figures/``, ``paper/tables/``,
``paper/REPRODUCTION.md`` for quick and full).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compass.sim.table_files import DEFAULT_FORMAT, table_path


@dataclass(frozen=True)
class Products:
    """What one notebook writes: figures (PNG + PDF) and tables (CSV + Markdown), by stem,
    the category (the paper's section) its products have in report.html, and report.html's
    caption of each stem (a figure and a table of one stem share it)."""

    figures: tuple[str, ...]
    tables: tuple[str, ...]
    category: str
    #: stem -> caption: exactly the stems of ``figures`` and ``tables``
    captions: Mapping[str, str]
    #: which results beyond runs.csv and the day tables it reads (``Layout.needs``):
    #: "case" (the case-study windows and replays), "nvl72" (the NVL72 runs)
    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        stems = {*self.figures, *self.tables}
        if set(self.captions) != stems:
            raise ValueError(f"captions must cover exactly the products {sorted(stems)}: "
                             f"missing {sorted(stems - set(self.captions))}, extra "
                             f"{sorted(set(self.captions) - stems)}")


#: The experiment notebooks in ``notebooks/``, in the paper's order, and their products.
NOTEBOOKS: dict[str, Products] = {
    "01_overall": Products(
        category="6.1 Overall (Fig. 1)",
        figures=("fig1_overall", "fig1_leads"),
        tables=("fig1_overall", "fig1_leads", "metric_windows"),
        captions={
            "fig1_overall": (
                "Section 6.1, Fig. 1: AFR, AJCT and AGU of every scheduler on each trace of the "
                "overall experiment (its eta), mean over the day samples with its 95 % bootstrap "
                "interval (n in each column's title), beside the values the paper states (an "
                "arrow at the edge where a stated value lies beyond the axis). The figure's title "
                "names the data (SYNTHETIC or real) and the profile; the CSV holds the plotted "
                "means and their intervals."),
            "fig1_leads": (
                "Section 6.1, Fig. 1's leads: COMPASS-ABS's lead over the strongest baseline per "
                "trace and metric, as a share of that baseline's mean, with its 95 % paired "
                "bootstrap interval over the samples ((day, seed) pairs on SYNTHETIC data) and the"
                " number of samples n. Right of zero, COMPASS-ABS is better; the CSV holds the "
                "absolute leads and intervals."),
            "metric_windows": (
                "Section 6.1: AFR and AGU of every scheduler over each run's own T_peak (the "
                "paper's definition, eq. 14-17) and over the common window of each sample (the "
                "union of every scheduler's T_peak on the same jobs), means over the overall "
                "experiment's samples."),
        }),
    "02_eta_sweep": Products(
        category="6.2 Eta sweep (Fig. 2)",
        figures=("fig2_eta_sweep",),
        tables=("fig2_eta_sweep",),
        captions={
            "fig2_eta_sweep": (
                "Section 6.2, Fig. 2: AFR, AJCT and AGU of every scheduler against the sizing "
                "level eta (contended at 0.85, loose at 0.95), mean over the day samples with its "
                "95 % bootstrap interval (n in each column's title); the CSV holds the plotted "
                "values and intervals."),
        }),
    "03_composition": Products(
        category="6.3 Composition (Table 2, Fig. 3)",
        figures=("fig3_composition",),
        tables=("table2_composition", "fig3_composition"),
        captions={
            "fig3_composition": (
                "Section 6.3, Fig. 3: robustness to workload composition: every scheduler's "
                "metrics on the three days of Table 2, mean over each day's seeds with its 95 % "
                "bootstrap interval (none where a REAL day is one replay; n in each column's "
                "title); the CSV holds the plotted values and intervals."),
            "table2_composition": (
                "Section 6.3, Table 2: the three most different days, chosen by code (the triple "
                "maximising the smallest pairwise L1 distance of their instance-class "
                "compositions)."),
        }),
    "04_wcc_coverage": Products(
        category="6.4 WCC coverage (Table 3)",
        figures=("fig_wcc_coverage",),
        tables=("table3_wcc_top1", "wcc_days"),
        captions={
            "fig_wcc_coverage": (
                "Section 6.4, Table 3 as a figure: the top-1 frequency of COMPASS-ABS per WCC "
                "coverage (rho) bucket."),
            "table3_wcc_top1": (
                "Section 6.4, Table 3: the top-1 frequency of COMPASS-ABS on (day, eta) pairs, per"
                " WCC coverage (rho) bucket."),
            "wcc_days": (
                "Section 6.4: the WCC coverage rho of each replayed day (the share of the day "
                "window during which eq. 9 holds for the day's instances), from which Table 3's "
                "buckets are made."),
        }),
    "05_migration_cost": Products(
        category="6.5 Migration cost (Fig. 4)",
        figures=("fig4_migration_cost",),
        tables=("fig4_migration_cost", "migrations_by_operator"),
        captions={
            "fig4_migration_cost": (
                "Section 6.5, Fig. 4: every scheduler's metrics against the migration cost c (the "
                "sweep's days), mean over the samples; the CSV holds the plotted values."),
            "migrations_by_operator": (
                "Section 6.5: charged migrations per run by the operator that issued them "
                "(COMPASS-ABS's Place, Remove, the pool / w4 / w2 passes of Compact, the repair "
                "step; FFT's, DRR's and SIFOpt's repacks): instance moves, migrated jobs, moves "
                "and pause per job, and each operator's share."),
        }),
    "06_case_study": Products(
        category="6.6 Case study (Figs. 5-7)",
        figures=("fig5_nsif", "fig6_gpu_util", "fig7_empty_nodes"),
        tables=("case_blocking", "case_head_blocking"),
        needs=("case",),
        captions={
            "fig5_nsif": (
                "Section 6.6, Fig. 5: N x SIF over time in the case-study windows (the paper's "
                "window, when replayed, and the busiest window chosen by code), per scheduler."),
            "fig6_gpu_util": (
                "Section 6.6, Fig. 6: GPU utilisation over time in the case-study windows, per "
                "scheduler."),
            "fig7_empty_nodes": (
                "Section 6.6, Fig. 7: empty nodes over time in the case-study windows, per "
                "scheduler."),
            "case_blocking": (
                "Section 6.6: queue blocking in each case-study window per scheduler: blocked "
                "time, its fragmentation-induced part and episodes, and the share of blocked jobs "
                "with g = 8 and w > 30 (by count and by time)."),
            "case_head_blocking": (
                "Section 6.6: blocked seconds charged to the class (g, w) of the job heading the "
                "FIFO queue, per window and scheduler, with the fragmentation-induced part and "
                "share."),
        }),
    "07_nvl72": Products(
        category="Appendix D: NVL72",
        figures=("fig_nvl72",),
        tables=("nvl72",),
        needs=("nvl72",),
        captions={
            "fig_nvl72": (
                "Appendix D: SIF per level (GPU and panel), AJCT and AGU of compass-abs-hier "
                "against gfs and fgd on K = 1, 2, 9 and 8 x 9 multi-panel domains (SYNTHETIC "
                "multi-panel workload, rule nvl72), with Theorem 2's bound of each SIF level "
                "(dotted: 2/N_p at the GPU level, 2/D at the panel level, from each platform's "
                "D and K)."),
            "nvl72": (
                "Appendix D: one row per platform and scheduler: mean SIF per level over time, "
                "AJCT, AGU and migrations (SYNTHETIC multi-panel workload, rule nvl72)."),
        }),
}
#: The REAL openb notebook: its own rules (workflow/rules/openb.smk), run only when the
#: profile has an ``openb`` block (``compass.experiments.studies.openb``).
OPENB_NOTEBOOK = "08_real_openb"
OPENB_PRODUCTS = Products(
    category="REAL openb",
    figures=("fig_openb_replay", "fig_openb_packing"),
    tables=("openb_replay", "openb_replay_leads", "openb_packing", "openb_packing_leads",
            "openb_drops"),
    captions={
        "fig_openb_replay": (
            "REAL openb (beyond the paper): the default openb pod list replayed in time under "
            "every scheduler; AFR, AJCT and AGU, busy-day means."),
        "fig_openb_packing": (
            "REAL openb (beyond the paper): the multi-GPU pod-list variants packed statically on "
            "the openb node list's 8-GPU nodes, against the multi-GPU share, at the first "
            "rejection and at saturation."),
        "openb_replay": (
            "REAL openb: AFR, AJCT and AGU of the whole replay and busy-day means with 95 % "
            "intervals, per scheduler."),
        "openb_replay_leads": (
            "REAL openb: COMPASS-ABS's lead over the strongest baseline on the replay, paired by "
            "busy day (positive: COMPASS-ABS better)."),
        "openb_packing": (
            "REAL openb: static packing, GPUs allocated, partial nodes and SIF per variant, stage "
            "and scheduler; means over seeds with 95 % intervals."),
        "openb_packing_leads": (
            "REAL openb: COMPASS-ABS's lead over the strongest baseline in the static packing, "
            "paired by seed, as the multi-GPU share rises."),
        "openb_drops":
            "REAL openb: pods read, kept and dropped by reason, per pod list.",
    })
#: Category of each notebook's products in report.html, from the registry above.
REPORT_CATEGORIES: dict[str, str] = {name: p.category for name, p in
                                     {**NOTEBOOKS, OPENB_NOTEBOOK: OPENB_PRODUCTS}.items()}


def notebook_products(name: str) -> Products:
    """The products of any notebook of the registry (the experiments' and openb's)."""
    if name == OPENB_NOTEBOOK:
        return OPENB_PRODUCTS
    if name not in NOTEBOOKS:
        raise ValueError(f"unknown notebook {name!r}")
    return NOTEBOOKS[name]

#: Notebook 01's extra table when the profile runs Phys-Mix physically (``physical``).
PHYSICAL_TABLE = "fig1_physical"
#: Table 1 is written by a rule, not a notebook.
TABLE1 = "table1_classes"
#: report.html's captions of the products that rules, not notebooks, write (Table 1, notebook
#: 01's physical table, the claims, the paper beside ours, the regime, the extension's and
#: the outside schedulers' leads).
#: A product's caption is one entry: here, or in its notebook's ``Products.captions``.
RULE_CAPTIONS: dict[str, str] = {
    TABLE1: (
        "Table 1: per-class instance share over each trace's span; the caption in the Markdown "
        "names the data (SYNTHETIC or real)."),
    PHYSICAL_TABLE: (
        "Section 5.1: Phys-Mix run as real PyTorch training on Ray under each scheduler (measured,"
        " not simulated), with the measured checkpoint-and-restart latency beside the simulator's "
        "migration cost c."),
    "leads_by_baseline": (
        "Which baseline decides each verdict: COMPASS-ABS against each of the six baselines "
        "alone, per lead claim (its paired lead, 95 % interval, n and the claim's verdict "
        "against that baseline) and per cell of a win-count claim (its class: win, tie, loss "
        "or undecided, sign first, then the margin)."),
    "gap_decomposition": (
        "Where COMPASS-ABS's AJCT lead comes from: per trace of the overall experiment, its "
        "lead over FFT and over the strongest of the five other baselines (s per job), split "
        "into migration pauses, queueing while enough GPUs were free for the head of the "
        "queue, other queueing and the rest, each with its 95 % bootstrap interval."),
    "fft_breakeven": (
        "FFT's break-even: COMPASS-ABS's AJCT (s) and AGU (percentage points) leads over FFT "
        "at each FFT round length, paired over the overall experiment's samples of the "
        "sweep's days, with 95 % bootstrap intervals and n; source: FFT's runs from the "
        "sweep or from the batches (FFT's own round, a round-only variant)."),
    "fft_paper_fit": (
        "fft-paper: per FFT round length, FFT's peak partial nodes over the day beside the "
        "five other baselines', their ratio, and the paper's ratio in the case window "
        "(section 6.6: 25-50 against 60-80); the chosen round is the one nearest the paper's "
        "middle, fitted to nothing of COMPASS-ABS's."),
    "compact_literal": (
        "Whose is COMPASS-ABS's pause per job? On the samples of FFT's break-even, per trace, "
        "measure (moves per job, pause per job in s) and operator of section 4.3.4 (and the "
        "run's total): the corrected Compact (compass-abs: the three BestFitDrain passes, "
        "then the repair) and the literal one (compass-abs-paper), each a mean over the "
        "samples with its 95 % bootstrap interval, and the paired difference literal - "
        "corrected with its interval; n samples both completed."),
    "claims": (
        "The claims table: every quantitative claim of the paper (and of the REAL openb "
        "experiments) beside the value this run measured, its 95 % paired-bootstrap interval, n "
        "and the verdict (holds, differs, inconclusive, no data, not measured). "
        "paper/REPRODUCTION.md renders it."),
    "paper_vs_ours": (
        "The paper beside ours: every number the paper's text and Tables 1-3 state for Figs. 1-7 "
        "(the value or range, and where it is stated), our value measured by the claim that names "
        "it (with its 95 % paired-bootstrap interval and n for a lead), how far ours reaches "
        "outside the paper's value (difference), and that claim's verdict; a row with nothing "
        'measured says "not measured" and why. paper/REPRODUCTION.md summarises it.'),
    "regime": (
        "The operating regime: each quantity the paper states for its baselines (AFR and AGU bands"
        " on the composition days, the GFS AGU level, the case window's partial nodes, empty nodes"
        " and GPU utilisation, the share of stalled samples) beside the value this run measured, "
        "with its interval; COMPASS-ABS's own GFS AGU is shown as held out."),
    "venus_synth_vs_real": (
        "How close was venus-synth? The SYNTHETIC stand-in (each seed a sample) beside REAL Venus "
        "on the same days: jobs and GPU-seconds per day, instance shares by g, job shares by w, "
        "duration quantiles, arrivals by hour of day (and their total-variation distance), and "
        "each scheduler's AFR and AGU on both when the profile replays venus-synth as a regime."),
    "baseline_ranking": (
        "Do the baselines rank as in the paper? Per group (an experiment's trace, condition and"
        " metric), the six baselines ordered by their mean over the samples, each one's share "
        "of paired bootstrap resamples on which it is first (P(first)), and, where the paper "
        "gives an order (only its case study, section 6.6), that order with where it is stated,"
        " Kendall's tau-b between it and ours, and whether ours agrees, differs or is "
        "undecided."),
    "plugin_leads": (
        "Outside schedulers: each scheduler a profile compares under compare_plugins (from a "
        "plugin, not one of the paper's) on the overall experiment's samples at its eta and c. "
        "Per trace and metric (AFR, AJCT, AGU): its lead over COMPASS-ABS and over the "
        "strongest paper baseline (positive: the plugin is better), paired over the samples "
        "with a 95 % bootstrap interval, n and the reading ahead, behind or undecided. No "
        "paper claim or verdict uses these runs."),
    "extension_leads": (
        "Beyond the paper: COMPASS-ABS+ (compass-abs-plus, our extension, not one of the paper's "
        "schedulers) on the overall experiment's samples at its eta and c. Per trace: its lead "
        "over the strongest paper baseline (gfs, fgd, cafgd, mcg, fft, drr) and over COMPASS-ABS "
        "on AJCT, AGU and AFR (positive: COMPASS-ABS+ is better), paired over the samples with a "
        "95 % bootstrap interval and n, and its mean migration pause per job with its interval. No"
        " paper claim or verdict uses these runs."),
}


#: Each sensitivity regime's claims table, ``claims_<regime>``
#: (``studies.regime.config.claims_stem``):
#: one caption for every regime a profile names.
REGIME_CLAIMS_PREFIX = "claims_"
REGIME_CLAIMS_CAPTION = (
    "The comparison claims on the regime {regime} (profile key regimes): the overall, eta-"
    "sweep, composition and cost-sweep claims judged again, by the same rules as "
    "claims.csv, on SYNTHETIC kinds whose baselines run in the paper's operating regime; "
    "the case-study claims are listed as not re-judged. Sensitivity: it never changes a "
    'verdict of claims.csv. paper/REPRODUCTION.md sets both side by side ("On the paper\'s '
    'regime").')


def caption(stem: str) -> str:
    """report.html's caption of the product ``stem`` (a figure's or table's file stem)."""
    for products in (*NOTEBOOKS.values(), OPENB_PRODUCTS):
        if stem in products.captions:
            return products.captions[stem]
    if stem not in RULE_CAPTIONS and stem.startswith(REGIME_CLAIMS_PREFIX):
        return REGIME_CLAIMS_CAPTION.format(regime=stem.removeprefix(REGIME_CLAIMS_PREFIX))
    if stem not in RULE_CAPTIONS:
        raise KeyError(f"no caption for product {stem!r}: add one to its notebook's Products "
                       "or to RULE_CAPTIONS (compass/experiments/layout.py)")
    return RULE_CAPTIONS[stem]

FIGURE_FORMATS = ("png", "pdf")
TABLE_FORMATS = ("csv", "md")


@dataclass(frozen=True)
class Layout:
    """Paths of one profile's results folder; its per-run tables (runs, the case study's,
    the NVL72 runs, the physical summary) in ``table_format``, the profile's
    ``outputs.table_format`` (csv or parquet)."""

    root: Path
    table_format: str = DEFAULT_FORMAT

    @classmethod
    def of(cls, root: str | Path) -> Layout:
        """The layout of a results folder, in the table format its config.json names (the
        default where it has none)."""
        config = Path(root) / "config.json"
        profile = json.loads(config.read_text())["profile"] if config.exists() else {}
        return cls(Path(root), profile.get("outputs", {}).get("table_format", DEFAULT_FORMAT))

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def runs(self) -> Path:
        return table_path(self.root, "runs", self.table_format)

    def breakeven_runs(self, trace: str) -> Path:
        """FFT's runs of the break-even sweep on one trace (``breakeven``); ``trace`` may be
        a wildcard."""
        return table_path(self.root / "breakeven", trace, self.table_format)

    def compact_literal_runs(self, trace: str) -> Path:
        """The literal Compact's runs of the break-even's samples of one trace
        (``compact_literal``); ``trace`` may be a wildcard."""
        return table_path(self.root / "compact_literal", trace, self.table_format)

    def run_part(self, trace: str, part: int | str) -> Path:
        """One ``simulate`` job's table (the rows of all its groups' batches); ``part`` may
        be a wildcard."""
        return table_path(self.root / "runs" / trace, f"part{part}", self.table_format)

    def trace_dir(self, trace: str) -> Path:
        return self.root / "traces" / trace

    def canonical(self, trace: str) -> Path:
        """A real trace, loaded once into the canonical schema."""
        return self.trace_dir(trace) / "canonical.csv"

    def day_table(self, trace: str) -> Path:
        return self.trace_dir(trace) / "days.csv"

    @property
    def physical(self) -> Path:
        """Physical runs (``compass.runtime``): one folder per scheduler, and summary.csv."""
        return self.root / "physical"

    def physical_table(self, scheduler: str, name: str) -> Path:
        """Table ``name`` (jobs, migrations, ...) of one scheduler's physical run."""
        return table_path(self.physical / scheduler, name, self.table_format)

    @property
    def physical_summary(self) -> Path:
        return table_path(self.physical, "summary", self.table_format)

    @property
    def case_windows(self) -> Path:
        """The case study's windows (section 6.6): the paper's (maybe absent), the busiest."""
        return self.root / "case" / "windows.json"

    @property
    def case_timelines(self) -> Path:
        return table_path(self.root / "case", "timelines", self.table_format)

    @property
    def case_jobs(self) -> Path:
        return table_path(self.root / "case", "jobs", self.table_format)

    @property
    def case_runs(self) -> Path:
        return table_path(self.root / "case", "runs", self.table_format)

    @property
    def nvl72(self) -> Path:
        """Appendix D's runs (``compass.experiments.studies.nvl72``): one row per platform and
        scheduler."""
        return table_path(self.root / "nvl72", "runs", self.table_format)

    @property
    def nvl72_settings(self) -> Path:
        """The workload settings those runs used (JSON)."""
        return self.root / "nvl72" / "settings.json"

    def needs(self, products: Products) -> list[Path]:
        """The results a notebook reads beyond runs.csv and the day tables (its ``needs``)."""
        files = {"case": [self.case_windows, self.case_timelines, self.case_jobs,
                          self.case_runs],
                 "nvl72": [self.nvl72, self.nvl72_settings]}
        return [path for need in products.needs for path in files[need]]

    @property
    def captions(self) -> Path:
        """report.html's caption files (``pipeline.caption_file``), one per product."""
        return self.root / "captions"

    def notebook(self, name: str) -> Path:
        return self.root / "notebooks" / f"{name}.ipynb"

    @property
    def logs(self) -> Path:
        """The folder of every step's log."""
        return self.root / "logs"

    def log(self, step: str) -> Path:
        """A step's log file (its stderr); ``step`` may hold wildcards and subfolders."""
        return self.logs / f"{step}.log"


def figure_files(figures: Path, stem: str) -> list[Path]:
    """The PNG and PDF of a figure."""
    return [figures / f"{stem}.{ext}" for ext in FIGURE_FORMATS]


def table_files(tables: Path, stem: str) -> list[Path]:
    """The CSV and Markdown of a table."""
    return [tables / f"{stem}.{ext}" for ext in TABLE_FORMATS]
