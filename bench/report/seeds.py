# SPDX-License-Identifier: MIT
"""The seeds' own figures, quoted for the report's "seed" columns.

Units are the seeds' (cycles or microseconds on their hardware); the report
never computes with them across systems, it shows them beside ours.
"""

# 000 Table 2: getpid on a 133 MHz Pentium, cycles.
T000_2 = {"Linux": 223, "L4Linux": 526, "L4Linux (trampoline)": 753,
          "MkLinux in-kernel": 2050, "MkLinux user": 14710}

# 000 Table 3 rows: label -> (seed Linux, seed L4Linux libc.so), in the unit
# the label names.  The key tuple says which of our benchmarks the row is.
T000_3 = [
    # (label, name, params, seed Linux, seed L4Linux)
    ("lmbench: write to /dev/null [us]", "lmbench.write", {}, 2.00, 5.26),
    ("lmbench: Null Process [us]", "lmbench.fork_exit", {}, 973, 2749),
    ("lmbench: Simple Process [us]", "lmbench.fork_execve", {}, 7400, 12058),
    ("lmbench: /bin/sh Process [us]", "lmbench.fork_sh", {}, 42412, 61115),
    ("lmbench: Mmap Latency [us]", "lmbench.mmap", {"size_kb": 8192}, 52.20, 64.28),
    ("lmbench: 2-proc ctxsw [us]", "lmbench.ctx", {"procs": 2, "size_kb": 0}, 7.00, 16.22),
    ("lmbench: 8-proc ctxsw [us]", "lmbench.ctx", {"procs": 8, "size_kb": 0}, 12.40, 22.22),
    ("lmbench: Pipe latency [us]", "lmbench.pipe_lat", {}, 29.00, 52.07),
    ("lmbench: UDP latency [us]", "lmbench.udp_lat", {}, 159.40, 243.02),
    ("lmbench: RPC/UDP latency [us]", "lmbench.rpc_udp_lat", {}, 321.40, 526.57),
    ("lmbench: TCP latency [us]", "lmbench.tcp_lat", {}, 207.40, 287.57),
    ("lmbench: RPC/TCP latency [us]", "lmbench.rpc_tcp_lat", {}, 459.60, 729.76),
    ("lmbench: Pipe bandwidth [MB/s]", "lmbench.pipe_bw", {"chunk_kb": 64}, 40.50, 37.61),
    ("lmbench: TCP bandwidth [MB/s]", "lmbench.tcp_bw", {}, 18.03, 13.23),
    ("hbench: getpid [us]", "lmbench.getpid", {}, 1.69, 4.55),
    ("hbench: Mmap Latency 4KB [us]", "lmbench.mmap", {"size_kb": 4}, 25.2, 35.0),
    ("hbench: Mmap Latency 8MB [us]", "lmbench.mmap", {"size_kb": 8192}, 53.7, 54.0),
    ("hbench: ctx 0K 2 [us]", "lmbench.ctx", {"procs": 2, "size_kb": 0}, 8.05, 17.1),
    ("hbench: Pipe [us]", "lmbench.pipe_lat", {}, 31.0, 62.3),
    ("hbench: Pipe 64KB [MB/s]", "lmbench.pipe_bw", {"chunk_kb": 64}, 40.3, 35.5),
]
# Table 3 rows that need a disk benchmark this suite leaves out.
T000_3_OMITTED = ["File reread, Mmap reread bandwidth"]

# 000 Table 4: (label, seed latency us, seed bandwidth MB/s).
T000_4 = {
    "linux_pipe": ("(1) Linux pipe", 29, "41"),
    "l4linux_pipe": ("(1a) L4Linux pipe", 46, "40"),
    "l4_pipe": ("(2) L4 pipe", 22, "48-70"),
    "l4_rpc": ("(3) synchronous L4 RPC", 5, "65-105"),
    "map_rpc": ("(4) synchronous mapping RPC", 12, "2470-2900"),
}

# 000 Table 5: name -> (label, seed L4 us, seed Linux us or None).
T000_5 = [
    ("vm.fault", "Fault", 6.2, None),
    ("vm.trap", "Trap", 3.4, 12),
    ("vm.appel1", "Appel1", 12, 55),
    ("vm.appel2", "Appel2", 10, 44),
]

# 001 Figure 3 (text of section 4.2): one-way IPC, zero-length message,
# cycles on a PXA255.
F001_3 = {"unmod": 174, "dslq": 289, "dseq": 350, "fslq": 359, "fseq": 419}

# 001 Table 2: (label, counter name or None for a derived percentage, seed value).
T001_2 = [
    ("IPCs", "ipcs", "1450474"),
    ("Eager enqueue operations", "eager_enqueue", "1509011"),
    ("Actual enqueue operations", "actual_enqueue", "62482"),
    ("At a deferred time", "deferred_enqueue", "19719"),
    ("Enqueue operations avoided", ("eager_enqueue", "actual_enqueue"), "95.86%"),
    ("Eager dequeue operations", "eager_dequeue", "1509056"),
    ("Actual dequeue operations", "actual_dequeue", "62482"),
    ("At a deferred time", "deferred_dequeue", "40289"),
    ("Dequeue operations avoided", ("eager_dequeue", "actual_dequeue"), "95.86%"),
    ("Context switches", "context_switches", "1571609"),
    ("Scheduling queue lookups", "queue_lookups", "80749"),
    ("Queue lookups avoided", ("context_switches", "queue_lookups"), "94.86%"),
]

# 001 Table 1: the Re-aim single-user tasks.
REAIM_TASKS = [
    ("brk_test", "Carry out the brk syscall in a loop"),
    ("creat_clo", "Create and then close files in a loop"),
    ("dgram_pipe", "Send and receive random-length datagram packets"),
    ("dir_rtms_1", "Carry out various directory querying syscalls"),
    ("exec_test", "Create children with fork, which in turn carry out an exec"),
    ("fork_test", "Create and wait for child processes using fork and wait"),
    ("link_test", "Create and destroy hard links to individual files"),
    ("misc_rtms_1", "Carry out miscellaneous Unix query syscalls"),
    ("page_test", "Allocate and deallocate memory with sbrk"),
    ("pipe_cpy", "Send and receive random-length packets over a Unix pipe"),
    ("shared_memory", "Semaphore operations and read/write on shared memory"),
    ("shell_rtms", "Execute simple shell scripts in a loop"),
    ("signal_test", "Send and catch Unix signals in a loop"),
    ("stream_pipe", "Send and receive random amounts of data of a Unix stream"),
    ("udp_test", "Send and receive random-length UDP packets over loopback"),
]

# 004 Tables 5.1 (Wombat) and 5.2 (L4Linux): label, benchmark, params,
# (Wombat, its Linux), (L4Linux, its Linux), microseconds.
T004_1 = [
    ("Simple syscall", "lmbench.getpid", {}, (1.7984, 0.1390), (2.8484, 0.1450)),
    ("Simple read", "lmbench.read", {}, (2.2934, 0.2934), (3.1667, 0.2873)),
    ("Simple write", "lmbench.write", {}, (1.9874, 0.2592), (3.0694, 0.2628)),
    ("Simple stat", "lmbench.stat", {}, (10.6236, 1.5543), (4.8517, 1.5869)),
    ("Simple fstat", "lmbench.fstat", {}, (2.5524, 0.3280), (3.2561, 0.3547)),
    ("Simple open/close", "lmbench.open_close", {}, (12.8226, 2.5222), (8.5410, 2.4924)),
    ("Procedure call", "lmbench.proc_call", {}, (0.0086, 0.0086), (0.0064, 0.0069)),
    ("Process fork+exit", "lmbench.fork_exit", {}, (382.4361, 77.8489), (575.2074, 121.8115)),
    ("Process fork+execve", "lmbench.fork_execve", {}, (403.2258, 84.6479), (666.4451, 126.1348)),
    ("Process fork+/bin/sh -c", "lmbench.fork_sh", {}, (2743.1421, 1966.1111), (7737.3333, 3785.8333)),
    ("Pagefaults on /tmp/mb", "lmbench.pagefault", {"memory": "file"}, (2.9481, 0.6494), (5.4076, 1.4557)),
    ("Pipe", "lmbench.pipe_lat", {}, (10.6482, 3.0510), (19.6858, 5.8088)),
    ("AF_UNIX sock", "lmbench.unix_lat", {}, (12.0589, 5.3582), (21.0634, 9.5811)),
    ("Signal handler install", "lmbench.sig_install", {}, (2.5968, 0.3854), (3.5238, 0.6216)),
    ("Signal handler overhead", "lmbench.sig_catch", {}, (5.0493, 1.1116), (6.0654, 2.2094)),
]

# 004 Tables 5.3-5.6: context switch latency (us) by processes (rows) and
# process size in KiB (columns); None where the thesis prints "--".
CTX_SIZES = [0, 1, 4, 16, 512]
CTX_PROCS = [2, 5, 8, 10, 20, 40, 60]
T004_CTX = {
    "5.3 Wombat": {1: [0.545, 0.130, 0.000, 0.110, 2.870], 2: [0.350, 0.333, 0.410, 0.417, 17.027],
                   5: [0.597, 0.620, 0.903, 1.133, 16.790], 10: [0.703, 0.777, 0.870, 1.427, 17.523],
                   20: [1.140, 1.267, 1.510, 3.047, None], 40: [2.237, 2.420, 2.823, 5.400, None],
                   60: [2.680, 2.783, 3.467, 5.733, None]},
    "5.4 Native Linux (Wombat's machine)": {
                   1: [0.075, 0.165, None, 0.110, None], 2: [0.750, 0.753, 0.797, 0.833, 9.490],
                   5: [1.010, 1.083, 1.147, 1.673, 10.460], 10: [0.993, 1.033, 1.217, 1.573, 10.760],
                   20: [0.947, 1.010, 1.197, 2.600, 11.363], 40: [1.240, 1.257, 1.827, 4.990, 13.847],
                   60: [1.547, 1.740, 2.810, 4.960, 12.183]},
    "5.5 L4Linux": {1: [0.060, 0.140, 0.090, 9.590, 18.910], 2: [0.910, 1.043, 0.940, 38.063, 100.850],
                    5: [1.270, 1.367, 1.470, 33.347, 95.820], 10: [1.277, 1.537, 2.453, 32.420, 93.895],
                    20: [1.847, 2.683, 6.077, 41.460, 94.660], 40: [3.807, 5.303, 9.977, 43.113, 101.420],
                    60: [5.403, 7.103, 11.313, 42.757, 103.530]},
    "5.6 Native Linux (L4Linux's machine)": {
                    1: [0.020, 0.015, 0.020, 0.020, None], 2: [1.827, 1.960, 2.053, 44.933, 125.115],
                    5: [2.327, 2.560, 2.680, 49.210, 135.230], 10: [2.240, 2.407, 3.310, 40.363, 116.640],
                    20: [2.527, 3.087, 5.847, 50.277, 116.420], 40: [3.670, 5.133, 9.630, 45.560, 105.320],
                    60: [4.970, 6.640, 10.693, 55.467, 139.075]},
}

# Which bench/posix program prints each benchmark (a crashed program's rows
# show as failed).  reaim.* come from `reaim`.
PROG_OF = {
    "lmbench.getpid": "lat_syscall", "lmbench.read": "lat_syscall", "lmbench.write": "lat_syscall",
    "lmbench.stat": "lat_syscall", "lmbench.fstat": "lat_syscall", "lmbench.open_close": "lat_syscall",
    "lmbench.proc_call": "lat_syscall",
    "lmbench.fork_exit": "lat_proc", "lmbench.fork_execve": "lat_proc", "lmbench.fork_sh": "lat_proc",
    "lmbench.pagefault": "lat_pagefault", "lmbench.mmap": "lat_mmap",
    "lmbench.pipe_lat": "lat_pipe", "lmbench.pipe_bw": "lat_pipe", "lmbench.unix_lat": "lat_unix",
    "lmbench.tcp_lat": "lat_inet", "lmbench.udp_lat": "lat_inet", "lmbench.tcp_bw": "lat_inet",
    "lmbench.rpc_udp_lat": "lat_inet", "lmbench.rpc_tcp_lat": "lat_inet",
    "lmbench.sig_install": "lat_sig", "lmbench.sig_catch": "lat_sig", "lmbench.ctx": "lat_ctx",
    "vm.trap": "lat_vm", "vm.appel1": "lat_vm", "vm.appel2": "lat_vm",
    "scale.fork_exit": "lat_scale",
    "rpc.pipe": "lat_rpc", "rpc.msgq": "lat_rpc",
    "file.create": "lat_file", "file.delete": "lat_file", "file.create_delete": "lat_file",
    "oo1.lookup": "oo1", "oo1.forward": "oo1", "oo1.reverse": "oo1", "oo1.insert": "oo1", "oo1.total": "oo1",
}

# lat_scale: fork+exit with this many processes of the benchmark alive.
SCALE_ALIVE = [1, 100, 1000]

# Issue 12's goals for the Linux personality, as ratios to native Linux here:
# (label, benchmark, params, goal text, most the ratio may be or None).  For
# bandwidths the ratio is a slowdown (Linux / Pecan), as everywhere.
# lx's rows also measured with the fast library path off (make bench-lx's third boot)
LX_TRAP_ROWS = ("lmbench.getpid", "lmbench.write", "lmbench.read")
LX_GOALS = [
    ("getpid", "lmbench.getpid", {}, "<= 1.2", 1.2),
    ("pipe latency", "lmbench.pipe_lat", {}, "<= 1.0", 1.0),
    ("pipe bandwidth (slowdown)", "lmbench.pipe_bw", {"chunk_kb": 64}, "—", None),
    ("write to /dev/null", "lmbench.write", {}, "<= 1.2", 1.2),
    ("read of /dev/zero", "lmbench.read", {}, "—", None),
    ("stat", "lmbench.stat", {}, "<= 1.2", 1.2),
    ("fstat", "lmbench.fstat", {}, "—", None),
    ("open+close", "lmbench.open_close", {}, "<= 1.2", 1.2),
    ("fork+exit", "lmbench.fork_exit", {}, "<= 1.5", 1.5),
    ("fork+execve", "lmbench.fork_execve", {}, "<= 1.5", 1.5),
    ("fork+/bin/sh -c", "lmbench.fork_sh", {}, "—", None),
    ("mmap 4 KiB", "lmbench.mmap", {"size_kb": 4}, "—", None),
    ("mmap 8 MiB", "lmbench.mmap", {"size_kb": 8192}, "—", None),
    ("anonymous page fault", "lmbench.pagefault", {"memory": "anon"}, "<= 1.0", 1.0),
    ("file page fault", "lmbench.pagefault", {"memory": "file"}, "—", None),
    ("signal install", "lmbench.sig_install", {}, "<= 1.5", 1.5),
    ("signal delivery", "lmbench.sig_catch", {}, "<= 1.5", 1.5),
    ("context switch, 2 processes", "lmbench.ctx", {"procs": 2, "size_kb": 0}, "—", None),
    ("context switch, 60 processes", "lmbench.ctx", {"procs": 60, "size_kb": 0}, "—", None),
    ("AF_UNIX round trip", "lmbench.unix_lat", {}, "—", None),
    # issue 24's goals: latency at most 1.5x Linux's, bandwidth at least 0.7x (slowdown <= 1/0.7)
    ("TCP round trip, loopback", "lmbench.tcp_lat", {}, "<= 1.5", 1.5),
    ("UDP round trip, loopback", "lmbench.udp_lat", {}, "<= 1.5", 1.5),
    ("TCP bandwidth, loopback (slowdown)", "lmbench.tcp_bw", {}, "<= 1.43", 1.43),
    ("HTTP request from the host, 1 KiB page (`make bench-http`)", "http.request", {"page": 1024}, "—", None),
    ("fork+exit, 1,000 processes alive", "scale.fork_exit", {"alive": 1000}, "—", None),
]
# Re-aim: each task's throughput at least 0.9 of native Linux's.
LX_REAIM_GOAL = 0.9

# 002 Table 1: microbenchmarks in microseconds on a 100 MHz R4600 (Mungi) and
# the same Indy under Linux.  Rows: (label, Mungi here, Linux here or None,
# seed Mungi, seed Linux); a "here" entry is (name, params).
T002_1 = [
    ("Null system call", ("mungi.null_syscall", {}), ("lmbench.getpid", {}), "4.6", "6.3"),
    ("Cross-domain call (PDX; Linux RPC over pipes)", ("mungi.pdx", {}), ("rpc.pipe", {}), "10-20", "161"),
    ("Cross-domain call, confined caller", ("mungi.pdx", {"restricted": 1}), ("rpc.pipe", {}), "-", "161"),
    ("Cross-domain call, empty APD", ("mungi.pdx_empty", {}), ("rpc.pipe", {}), "-", "161"),
    ("Cross-domain call, empty APD, confined caller", ("mungi.pdx_empty", {"restricted": 1}), ("rpc.pipe", {}),
     "-", "161"),
    ("Cross-domain call (Linux RPC over SysV message queues)", ("mungi.pdx", {}), ("rpc.msgq", {}), "10-20", "-"),
    ("Thread create", ("mungi.thread_create", {}), None, "83/48", "N/A"),
    ("Thread delete", ("mungi.thread_delete", {}), None, "48", "N/A"),
    ("Thread create + delete (Linux: fork, exit, wait)", ("mungi.thread_create_delete", {}),
     ("lmbench.fork_exit", {}), "131/96", "2,450"),
    ("Task create", ("mungi.task_create", {}), None, "600", "N/A"),
    ("Task delete", ("mungi.task_delete", {}), None, "310", "N/A"),
    ("Task create + delete (Linux: fork, exec, exit, wait)", ("mungi.task_create_delete", {}),
     ("lmbench.fork_execve", {}), "910", "34,163"),
    ("Object create (Linux: open O_CREAT, close)", ("mungi.obj_create", {}), ("file.create", {}), "60", "N/A"),
    ("Object delete (Linux: unlink)", ("mungi.obj_delete", {}), ("file.delete", {}), "150", "N/A"),
    ("Object access: first touch (Linux: open, close)", ("mungi.obj_touch", {}), ("lmbench.open_close", {}),
     "90", "45"),
    ("Object create + access + delete (Linux: create, write, close, unlink)",
     ("mungi.obj_create_touch_delete", {}), ("file.create_delete", {}), "300", "447"),
    ("Page fault/map", ("mungi.page_map", {}), None, "25", "N/A"),
]

# 002 Tables 2 and 3: OO1 in milliseconds (lookup, forward, reverse, insert, total).
OO1_OPS = ["lookup", "forward", "reverse", "insert", "total"]
T002_2 = [("Linux 32-bit", ["7.99", "5.97", "N/A", "N/A", "N/A"]),
          ("Irix 32-bit", ["7.44", "4.77", "5.13", "4.76", "22.10"]),
          ("Irix 64-bit", ["7.78", "6.47", "7.49", "6.23", "27.97"]),
          ("Mungi 64-bit", ["7.95", "6.60", "7.71", "5.31", "27.57"])]
T002_3 = [("Irix 32-bit/message passing", ["946", "1,445", "1445", "208", "4,047"]),
          ("Irix 32-bit/shared memory", ["949", "1,409", "1,411", "203", "3,972"]),
          ("Linux 32-bit/message passing", ["344", "467", "461", "842", "2,114"]),
          ("Mungi 64-bit/PDX", ["51", "59", "61", "16", "189"]),
          ("Mungi 64-bit/PDX/restricted", ["50", "58", "60", "16", "184"])]
