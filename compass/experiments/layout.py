"""Where the pipeline puts things, and which products each notebook makes.

One place for paths, so that the Snakefile, the notebooks, the report and the smoke test
agree. Results of a profile live under ``results/<profile>/``; figures, tables and the
report go where the profile's ``outputs`` say (``figures/``, ``paper/tables/``,
``paper/REPRODUCTION.md`` for quick and full).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from compass.table_files import DEFAULT_FORMAT, table_path


@dataclass(frozen=True)
class Products:
    """What one notebook writes: figures (PNG + PDF) and tables (CSV + Markdown), by stem,
    and the category (the paper's section) its products have in report.html."""

    figures: tuple[str, ...]
    tables: tuple[str, ...]
    category: str
    #: which results beyond runs.csv and the day tables it reads (``Layout.needs``):
    #: "case" (the case-study windows and replays), "nvl72" (the NVL72 runs)
    needs: tuple[str, ...] = ()


#: The experiment notebooks in ``notebooks/``, in the paper's order, and their products.
NOTEBOOKS: dict[str, Products] = {
    "01_overall": Products(("fig1_overall", "fig1_leads"),
                           ("fig1_overall", "fig1_leads", "metric_windows"),
                           "6.1 Overall (Fig. 1)"),
    "02_eta_sweep": Products(("fig2_eta_sweep",), ("fig2_eta_sweep",), "6.2 Eta sweep (Fig. 2)"),
    "03_composition": Products(("fig3_composition",), ("table2_composition",
                                                       "fig3_composition"),
                               "6.3 Composition (Table 2, Fig. 3)"),
    "04_wcc_coverage": Products(("fig_wcc_coverage",), ("table3_wcc_top1", "wcc_days"),
                                "6.4 WCC coverage (Table 3)"),
    "05_migration_cost": Products(("fig4_migration_cost",), ("fig4_migration_cost",
                                                             "migrations_by_operator"),
                                  "6.5 Migration cost (Fig. 4)"),
    "06_case_study": Products(("fig5_nsif", "fig6_gpu_util", "fig7_empty_nodes"),
                              ("case_blocking", "case_head_blocking"),
                              "6.6 Case study (Figs. 5-7)", needs=("case",)),
    "07_nvl72": Products(("fig_nvl72",), ("nvl72",), "Appendix D: NVL72", needs=("nvl72",)),
}
#: The REAL openb notebook: its own rules (workflow/rules/openb.smk), run only when the
#: profile has an ``openb`` block (``compass.experiments.openb``).
OPENB_NOTEBOOK = "08_real_openb"
OPENB_PRODUCTS = Products(("fig_openb_replay", "fig_openb_packing"),
                          ("openb_replay", "openb_replay_leads", "openb_packing",
                           "openb_packing_leads", "openb_drops"), "REAL openb")
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
        """Appendix D's runs (``compass.experiments.nvl72``): one row per platform and
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
