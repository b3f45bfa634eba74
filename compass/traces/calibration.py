"""Calibration targets for the synthetic traces, embedded so the package runs without data/.

Every constant is copied from one CSV of the repository's ``data/calibration/`` (named in
``SOURCES`` and in the comment above it); ``tests/test_traces_calibration.py`` recomputes
each one from the CSVs. The CSVs themselves cite the upstream repositories and the paper
(Tables 1-3, sections 5.2-5.3 and 6.3-6.4); data/README.md lists them. Do not edit by hand:
change the CSV, then copy the value here and let the test confirm it.
"""

from __future__ import annotations

from compass import model as _model

#: Per-instance class shares in percent, paper Table 1 (I_FF read as g in {2, 4}).
#: Source: paper_table1_instance_share.csv.
TABLE1_SHARE_PCT = {
    "gfs": {"I=1": 64.16, "I_FF": 6.07, "I_FUF": 0.05, "I=8": 29.73},
    "venus": {"I=1": 37.68, "I_FF": 9.44, "I_FUF": 0.44, "I=8": 52.44},
}

#: Instance-size ratios of the three selected days, paper Table 2 (section 6.3).
#: Source: paper_table2_day_composition.csv.
TABLE2_COMPOSITION = {
    ("venus", 92): {"1 GPU": 0.73, "2-7 GPU": 0.06, "8 GPU": 0.21},
    ("gfs", 58): {"1 GPU": 0.57, "2-7 GPU": 0.04, "8 GPU": 0.39},
    ("gfs", 26): {"1 GPU": 0.43, "2-7 GPU": 0.09, "8 GPU": 0.48},
}

#: (day, eta) pairs the paper replays per trace (section 6.4, Table 3).
#: Source: paper_trace_facts.csv.
REPLAYED_DAY_ETA_PAIRS = {"venus": 564, "gfs": 552}

#: Cluster-scaling levels eta of eq. 13 (sections 5.2, 6.2).
#: Source: paper_trace_facts.csv.
ETAS = _model.PAPER_ETAS  # the one triple (compass.model), checked against the CSV

#: (day, eta) pairs per WCC-coverage bucket, paper Table 3 (section 6.4).
#: Source: paper_trace_facts.csv.
TABLE3_RHO_BUCKETS = {
    "venus": {
        "1.0": 487, "[0.99,1)": 26, "[0.9,0.99)": 25, "[0.7,0.9)": 11, "[0.1,0.7)": 10,
        "[0,0.1)": 5,
    },
    "gfs": {"1.0": 552},
}

#: GFS jobs per whole gpu_request (all job types): the per-job GPU demand.
#: Source: gfs_gpu_request_distribution.csv.
GFS_JOBS_BY_GPU_REQUEST = {1: 314922, 2: 22985, 3: 46, 4: 18023, 5: 56, 6: 230, 7: 24, 8: 61343}

#: GFS jobs with a fractional gpu_request (dropped by the paper's integer filter).
#: Source: gfs_gpu_request_distribution.csv.
GFS_FRACTIONAL_GPU_JOBS = 49238

#: GFS jobs per worker_num (instances per job), all 466,867 jobs.
#: Source: gfs_worker_num_distribution.csv.
GFS_WORKER_NUM_JOBS = {
    1: 427584, 2: 13142, 3: 4600, 4: 5267, 5: 1689, 6: 1785, 7: 1566, 8: 2486, 9: 632, 10: 555,
    11: 482, 12: 467, 13: 369, 14: 291, 15: 535, 16: 872, 17: 200, 18: 163, 19: 155, 20: 125,
    21: 136, 22: 113, 23: 130, 24: 153, 25: 167, 26: 52, 27: 75, 28: 87, 29: 146, 30: 209,
    31: 300, 32: 755, 33: 27, 34: 21, 35: 24, 36: 20, 37: 19, 38: 20, 39: 47, 40: 29, 41: 20,
    42: 23, 43: 34, 44: 29, 45: 25, 46: 15, 47: 22, 48: 22, 49: 13, 50: 10, 51: 13, 52: 11,
    53: 14, 54: 16, 55: 17, 56: 13, 57: 15, 58: 13, 59: 22, 60: 99, 61: 64, 62: 88, 63: 77,
    64: 84, 65: 10, 66: 13, 67: 14, 68: 6, 69: 10, 70: 8, 71: 6, 72: 19, 73: 13, 74: 36, 75: 32,
    76: 13, 77: 5, 78: 6, 79: 6, 80: 10, 81: 6, 82: 12, 83: 18, 84: 6, 85: 2, 86: 4, 87: 6,
    88: 5, 89: 8, 90: 4, 91: 2, 92: 6, 93: 3, 94: 3, 95: 4, 96: 4, 97: 4, 98: 2, 99: 7, 100: 6,
    101: 3, 103: 4, 104: 3, 105: 2, 106: 3, 107: 2, 108: 6, 109: 2, 110: 1, 111: 3, 112: 2,
    113: 2, 114: 3, 115: 3, 116: 1, 117: 1, 118: 4, 119: 4, 120: 1, 121: 4, 122: 1, 123: 6,
    124: 7, 125: 19, 126: 22, 127: 23, 128: 15, 129: 5, 130: 1, 132: 5, 133: 3, 135: 2, 137: 3,
    138: 2, 139: 1, 140: 1, 142: 1, 143: 2, 144: 2, 147: 1, 148: 2, 149: 1, 150: 1, 153: 1,
    154: 1, 155: 2, 156: 3, 157: 2, 158: 2, 159: 2, 160: 1, 161: 2, 162: 2, 164: 2, 166: 3,
    168: 2, 169: 1, 170: 1, 171: 1, 172: 2, 174: 4, 175: 4, 176: 7, 177: 2, 178: 3, 179: 2,
    182: 2, 183: 3, 184: 1, 185: 3, 189: 1, 190: 1, 191: 3, 196: 4, 198: 1, 200: 3, 201: 1,
    202: 1, 203: 1, 207: 2, 209: 1, 215: 1, 217: 1, 219: 1, 222: 2, 223: 1, 224: 2, 228: 1,
    233: 2, 238: 3, 240: 3, 241: 1, 244: 1, 246: 2, 247: 1, 248: 1, 249: 1, 253: 1, 254: 1,
    259: 1, 260: 1, 268: 1, 271: 1, 280: 1, 281: 1, 290: 1, 332: 1,
}

#: Share of all GFS GPU-seconds (gpu_request x worker_num x duration) per worker_num bucket.
#: Source: gfs_worker_bucket_shares.csv.
GFS_GPU_SECONDS_SHARE_BY_WORKERS = {
    "1": 0.722467, "2 to 8": 0.095172, "9 to 32": 0.097963, "33 to 128": 0.077347,
    "129 plus": 0.007051,
}

#: Share of all GFS GPU-seconds per total-GPU-demand bucket (gpu_request x worker_num), the
#: whole-GPU buckets (bucket 0, below one GPU, is left out; the shares sum to its complement).
#: Source: gfs_demand_bucket_shares.csv.
GFS_GPU_SECONDS_SHARE_BY_DEMAND = {
    "1": 0.547072, "2 to 4": 0.078497, "5 to 8": 0.09565, "9 to 16": 0.035541, "17 to 32":
    0.035433, "33 to 64": 0.025956, "65 to 128": 0.023183, "129 plus": 0.15115,
}

#: Of the real GFS job rows with worker_num > 30 (whole GPUs), the share at gpu_request = 8.
#: Source: gfs_job_rows_shape.csv.
GFS_WIDE_JOB_G8_SHARE = 0.916667

#: The widest 1-GPU gang among the real GFS job rows (worker_num at gpu_request = 1).
#: Source: gfs_job_rows_shape.csv.
GFS_MAX_WORKERS_AT_G1 = 183

#: GFS duration quantiles in seconds, all jobs.
#: Source: gfs_duration_stats.csv.
GFS_DURATION_QUANTILES_S = {0.5: 1216.0, 0.9: 45773.4, 0.95: 461465.3, 0.99: 5663026.28}

#: Share of GFS jobs per duration bucket, all jobs (bucket edges as the source labels them).
#: Source: gfs_duration_stats.csv.
GFS_DURATION_BUCKET_SHARES = {
    "0_to_1_min": 0.123562, "1_to_10_min": 0.246691, "10_to_60_min": 0.349123,
    "1_to_6_hours": 0.140428, "6_to_24_hours": 0.060756, "1_to_3_days": 0.019406,
    "over_3_days": 0.060034,
}

#: Shortest and longest GFS duration in seconds (HP jobs; Spot lies inside).
#: Source: gfs_duration_stats.csv.
GFS_DURATION_MIN_MAX_S = (1.0, 15897599.0)

#: GFS jobs submitted per trace day 0..184 (day 0 holds the jobs stamped at time 0).
#: Source: gfs_arrivals_by_day.csv.
GFS_JOBS_BY_DAY = (
    8587, 5529, 4665, 5542, 4377, 3550, 3226, 2474, 2119, 1920, 2606, 3096, 2319, 2809, 2721,
    1611, 1603, 2397, 2205, 2332, 2320, 2237, 1849, 1880, 2446, 2119, 2114, 1700, 1408, 1355,
    1799, 2169, 2257, 2385, 1501, 1476, 2337, 2465, 2488, 2134, 1769, 1543, 2306, 3129, 2805,
    3185, 3233, 3100, 3244, 3003, 2750, 2739, 4035, 4808, 4754, 5294, 3724, 2579, 3119, 2614,
    3446, 2714, 2133, 1509, 1749, 1543, 2218, 2932, 2997, 2987, 2710, 2564, 2507, 3375, 3327,
    3054, 3173, 3005, 2936, 2509, 2976, 2974, 2903, 2796, 2709, 2360, 2211, 3029, 2792, 2811,
    2750, 2497, 5851, 13855, 11746, 10811, 7680, 2072, 1410, 757, 953, 889, 1671, 1888, 1949,
    2825, 1682, 1163, 2043, 2492, 3028, 2542, 2945, 1569, 1632, 2580, 3065, 3439, 2592, 2212,
    1710, 1794, 2571, 2450, 3909, 1965, 1978, 1447, 1267, 2329, 1910, 1812, 1398, 1122, 771,
    797, 1812, 1424, 1633, 1951, 1401, 1599, 1441, 2313, 3153, 2094, 1657, 1483, 851, 799, 1629,
    2011, 2584, 1757, 1754, 1316, 1289, 1935, 2487, 2221, 2119, 1722, 1108, 1088, 1779, 2672,
    1743, 1268, 1600, 1970, 1748, 2795, 2306, 3073, 1744, 1411, 934, 1057, 1725, 1493, 1915,
    2058, 1291, 1004, 23,
)

#: GPU-seconds (gpu_request x worker_num x duration) submitted per GFS trace day 0..184, all
#: jobs (day 0 holds the time-0 backlog).
#: Source: gfs_arrivals_by_day.csv.
GFS_GPU_SECONDS_BY_DAY = (
    22040147002.31, 1346142057.3, 858157095.0, 1087510215.0, 1217480406.3, 1283168049.4,
    1179364972.9, 671795435.9, 420571328.2, 432476302.1, 846010368.8, 839747993.9, 1065472909.9,
    801638713.9, 1333405245.75, 484521501.4, 393459758.4, 618694847.5, 1021614679.7,
    658939405.3, 812471636.0, 881318363.0, 484032186.3, 678626662.0, 704788263.0, 1098177413.0,
    1074971846.2, 487233685.6, 643732375.6, 310064334.5, 338178996.0, 852944017.2, 750482015.1,
    815234029.7, 293257411.8, 245265143.6, 200834029.0, 317473676.0, 663570397.6, 723400926.6,
    646936089.3, 567513007.0, 1003313492.1, 488744154.0, 438218751.5, 778712503.5, 1083844490.7,
    934386259.1, 1178251436.3, 1147370812.7, 567716128.5, 430602953.5, 1030091720.9,
    671176075.3, 632391063.4, 796445119.2, 799524704.5, 568128119.6, 719226674.8, 608903997.8,
    310336349.6, 233211074.7, 481663128.4, 346436577.4, 97325276.9, 123926830.9, 456265460.3,
    932152182.7, 918400469.0, 1785574326.9, 1784243528.2, 549670865.5, 441763831.0,
    1683878489.2, 804814795.8, 725606820.2, 904544123.6, 990031180.0, 679989348.7, 765902723.3,
    611645089.9, 760807410.5, 1230052394.2, 889493918.7, 878109746.6, 757463137.8, 481705667.2,
    1064690629.2, 795294448.7, 813183387.7, 482337279.7, 694435981.2, 561541333.7, 1224498891.9,
    1373197711.3, 1648363729.0, 1338022580.2, 882064923.1, 662369819.8, 335604034.3,
    314094673.2, 203976918.9, 664472244.4, 597381461.4, 577400995.4, 736453965.0, 224401756.0,
    264396007.5, 445419576.6, 672116070.6, 944125594.9, 810859672.2, 593250893.5, 560545784.5,
    287412472.6, 1277755951.6, 616161660.9, 847093728.6, 831112066.1, 939903949.8, 422306149.4,
    324400696.7, 494300368.3, 514996943.90000004, 758829547.7, 681730669.0, 777422908.7,
    432473011.7, 401056494.1, 609484908.4, 653408782.9, 763079619.4, 549350457.5, 582916437.9,
    449037726.0, 360909379.0, 504440084.9, 614119751.2, 712471288.8, 709135389.5, 651169884.8,
    382584088.8, 224615125.1, 625676809.0, 990130171.5, 494310618.0, 749964763.7, 570087820.8,
    658922023.7, 251472828.5, 552029874.8, 443981163.0, 378033659.1, 763053732.5, 857021477.0,
    269875542.3, 336559590.1, 504844811.0, 729166629.9, 425919576.5, 384688337.0, 566548570.9,
    626032042.5, 115312126.5, 359664594.7, 436457325.2, 607561654.5, 281705575.5, 343853514.5,
    401797698.6, 348924389.2, 568407539.6, 667242899.4, 382871505.2, 307797633.6, 378420644.9,
    369785718.5, 365947869.8, 298232894.8, 355440296.3, 413710431.8, 274102915.0, 200745881.8,
    106634523.0, 103515.0,
)

#: Estimated share of GFS GPU-seconds on whole-GPU jobs (the paper's filter): 1 minus the
#: share of jobs whose total demand is below one GPU.
#: Source: gfs_load.csv.
GFS_WHOLE_GPU_SECONDS_SHARE = 0.992484

#: GFS jobs whose total GPU demand (gpu_request x worker_num) is 129 or more.
#: Source: gfs_load.csv.
GFS_JOBS_AT_LEAST_129_GPUS = 2287

#: GFS GPUs active (requested) per hour of day over the mean, trace days 7-183.
#: Source: gfs_load.csv.
GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY = (
    0.947078, 0.94326, 0.922588, 0.919143, 0.915189, 0.911585, 0.911036, 0.910101, 0.915267,
    0.934514, 0.990608, 1.028018, 1.011137, 1.015161, 1.047476, 1.059337, 1.071558, 1.08706,
    1.066203, 1.075148, 1.079836, 1.074865, 1.082584, 1.081248,
)

#: Day-to-day coefficient of variation of the daily mean GPUs active, trace days 7-183.
#: Source: gfs_load.csv.
GFS_ACTIVE_GPUS_DAILY_CV = 0.087596

#: Mean GPUs active (requested), trace days 7-183: the backlog and fractional jobs included.
#: Source: gfs_load.csv.
GFS_ACTIVE_GPUS_MEAN = 9509.5

#: GFS jobs per hour of day, counted from the first submission, whole trace.
#: Source: gfs_arrivals_by_hour_of_day.csv.
GFS_JOBS_BY_HOUR_OF_DAY = (
    22451, 15929, 14089, 13387, 12921, 14128, 14232, 15038, 15945, 16972, 25057, 25735, 19770,
    19276, 25304, 25039, 27015, 25376, 20016, 21189, 21885, 19162, 18813, 18138,
)

#: Mean GFS jobs in hour-of-day 0 over the days after the first.
#: Source: gfs_arrivals_by_hour_of_day.csv.
GFS_HOUR0_MEAN_JOBS_EXCL_TRACE_HOUR0 = 101.69

#: GFS jobs in job_info_df.csv.
#: Source: gfs_summary.csv.
GFS_TOTAL_JOBS = 466867

#: GFS jobs submitted in the first trace hour (backlog included).
#: Source: gfs_summary.csv.
GFS_TRACE_HOUR0_JOBS = 3740

#: GFS span, max(submit_time) / 86400.
#: Source: gfs_summary.csv.
GFS_SPAN_DAYS = 184.06

#: Venus GPU jobs per gpu_num bin, percent of jobs (all final states).
#: Source: venus_gpu_num_per_job_distribution.csv.
VENUS_GPU_NUM_JOB_SHARE_PCT = {
    "1": 51.838, "2": 5.545, "3-4": 7.419, "5-8": 25.174, "9-12": 0.003, "13-16": 4.164,
    "17-24": 0.899, "25-32": 2.718, "33-40": 0.286, "41-48": 0.254, "49-56": 0.176,
    "57-64": 0.233, ">64": 1.291,
}

#: Venus share of GPU time per gpu_num bin, percent (all final states).
#: Source: venus_gpu_num_per_job_distribution.csv.
VENUS_GPU_TIME_SHARE_PCT = {
    "1": 4.633, "2": 3.371, "3-4": 4.762, "5-8": 29.369, "9-12": 0.001, "13-16": 16.189,
    "17-24": 1.855, "25-32": 23.246, "33-40": 1.365, "41-48": 1.071, "49-56": 2.117,
    "57-64": 2.921, ">64": 9.1,
}

#: Venus GPU-job duration CDF in percent at 2^0..2^21 seconds.
#: Source: helios_duration_cdf.csv.
VENUS_DURATION_CDF_PCT = {
    1: 1.888, 2: 2.776, 4: 4.057, 8: 6.373, 16: 9.637, 32: 14.763, 64: 23.222, 128: 37.642,
    256: 55.054, 512: 65.144, 1024: 72.858, 2048: 78.53, 4096: 83.668, 8192: 86.892,
    16384: 89.646, 32768: 92.327, 65536: 95.416, 131072: 97.459, 262144: 98.902, 524288: 99.643,
    1048576: 99.939, 2097152: 100.0,
}

#: Venus GPU jobs submitted per day, 2020-04-01 (day 0) .. 2020-09-28.
#: Source: venus_arrivals_by_day.csv.
VENUS_GPU_JOBS_BY_DAY = (
    754, 539, 639, 470, 544, 410, 438, 651, 551, 789, 655, 490, 802, 921, 1121, 809, 661, 509,
    575, 706, 832, 649, 1200, 854, 642, 790, 724, 575, 763, 848, 272, 481, 879, 414, 318, 838,
    1249, 518, 662, 1574, 796, 1045, 698, 232, 76, 180, 347, 588, 372, 375, 451, 658, 373, 308,
    471, 634, 716, 705, 589, 456, 301, 420, 413, 663, 1208, 906, 209, 270, 762, 658, 392, 679,
    364, 265, 355, 619, 441, 697, 480, 465, 411, 167, 813, 577, 547, 270, 519, 414, 643, 773,
    827, 847, 1082, 664, 548, 654, 1039, 1076, 708, 584, 533, 304, 488, 1011, 639, 1239, 796,
    739, 460, 475, 817, 1784, 655, 923, 622, 364, 329, 649, 596, 643, 774, 729, 401, 329, 516,
    672, 596, 706, 917, 998, 297, 624, 865, 829, 813, 718, 289, 393, 688, 850, 1524, 780, 825,
    897, 502, 615, 680, 982, 1082, 706, 632, 478, 929, 1098, 1150, 1288, 855, 311, 323, 1015,
    1170, 1992, 1130, 572, 414, 372, 1267, 747, 1508, 1482, 610, 440, 560, 927, 885, 1393, 956,
    1249, 457, 1425, 0,
)

#: Mean Venus GPU jobs submitted per clock hour (180 days).
#: Source: venus_arrivals_by_hour_of_day.csv.
VENUS_GPU_JOBS_BY_HOUR_OF_DAY = (
    25.994, 19.072, 17.378, 11.139, 7.772, 5.956, 5.433, 6.489, 10.85, 23.072, 37.533, 42.728,
    33.75, 37.639, 45.189, 48.011, 50.261, 50.228, 37.167, 38.061, 38.972, 39.544, 33.306,
    30.089,
)

#: Venus days with submissions (2020-04-01..2020-09-27).
#: Source: venus_summary.csv.
VENUS_SPAN_DAYS = 180

#: Median Venus GPU-job run time in seconds (a check on the duration CDF).
#: Source: venus_summary.csv.
VENUS_MEDIAN_GPU_RUN_TIME_S = 204.0

#: The calibration CSV each constant comes from.
SOURCES = {
    "TABLE1_SHARE_PCT": "paper_table1_instance_share.csv",
    "TABLE2_COMPOSITION": "paper_table2_day_composition.csv",
    "REPLAYED_DAY_ETA_PAIRS": "paper_trace_facts.csv",
    "ETAS": "paper_trace_facts.csv",
    "TABLE3_RHO_BUCKETS": "paper_trace_facts.csv",
    "GFS_JOBS_BY_GPU_REQUEST": "gfs_gpu_request_distribution.csv",
    "GFS_FRACTIONAL_GPU_JOBS": "gfs_gpu_request_distribution.csv",
    "GFS_WORKER_NUM_JOBS": "gfs_worker_num_distribution.csv",
    "GFS_GPU_SECONDS_SHARE_BY_WORKERS": "gfs_worker_bucket_shares.csv",
    "GFS_GPU_SECONDS_SHARE_BY_DEMAND": "gfs_demand_bucket_shares.csv",
    "GFS_WIDE_JOB_G8_SHARE": "gfs_job_rows_shape.csv",
    "GFS_MAX_WORKERS_AT_G1": "gfs_job_rows_shape.csv",
    "GFS_DURATION_QUANTILES_S": "gfs_duration_stats.csv",
    "GFS_DURATION_BUCKET_SHARES": "gfs_duration_stats.csv",
    "GFS_DURATION_MIN_MAX_S": "gfs_duration_stats.csv",
    "GFS_JOBS_BY_DAY": "gfs_arrivals_by_day.csv",
    "GFS_GPU_SECONDS_BY_DAY": "gfs_arrivals_by_day.csv",
    "GFS_WHOLE_GPU_SECONDS_SHARE": "gfs_load.csv",
    "GFS_JOBS_AT_LEAST_129_GPUS": "gfs_load.csv",
    "GFS_ACTIVE_GPUS_BY_HOUR_OF_DAY": "gfs_load.csv",
    "GFS_ACTIVE_GPUS_DAILY_CV": "gfs_load.csv",
    "GFS_ACTIVE_GPUS_MEAN": "gfs_load.csv",
    "GFS_JOBS_BY_HOUR_OF_DAY": "gfs_arrivals_by_hour_of_day.csv",
    "GFS_HOUR0_MEAN_JOBS_EXCL_TRACE_HOUR0": "gfs_arrivals_by_hour_of_day.csv",
    "GFS_TOTAL_JOBS": "gfs_summary.csv",
    "GFS_TRACE_HOUR0_JOBS": "gfs_summary.csv",
    "GFS_SPAN_DAYS": "gfs_summary.csv",
    "VENUS_GPU_NUM_JOB_SHARE_PCT": "venus_gpu_num_per_job_distribution.csv",
    "VENUS_GPU_TIME_SHARE_PCT": "venus_gpu_num_per_job_distribution.csv",
    "VENUS_DURATION_CDF_PCT": "helios_duration_cdf.csv",
    "VENUS_GPU_JOBS_BY_DAY": "venus_arrivals_by_day.csv",
    "VENUS_GPU_JOBS_BY_HOUR_OF_DAY": "venus_arrivals_by_hour_of_day.csv",
    "VENUS_SPAN_DAYS": "venus_summary.csv",
    "VENUS_MEDIAN_GPU_RUN_TIME_S": "venus_summary.csv",
}
