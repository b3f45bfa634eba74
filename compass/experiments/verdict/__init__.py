"""The verdict wing: the paper's claims as data (``claims``), their measures (``measures``,
and the studies' kinds through ``registry``), the claims table with its verdicts
(``verdicts``), every number the paper states beside ours (``paper_vs_ours``) and the
report that renders them (``report``: paper/REPRODUCTION.md).

Above the main experiments, below the studies: it imports the former and never a study;
a study registers what it adds (``registry``).
"""
