"""The server's rooms: the supervisor's imports leave grpc unloaded (it forks after them), and HTTP's
budget is read from the one Limits, so that HTTP and gRPC calls are bounded alike."""

import subprocess
import sys

from server.runtime.httpbudget import HttpBudget
from server.runtime.limits import Limits

NO_GRPC_BEFORE_FORK = """
import sys
import server.app, server.runtime.config, server.runtime.limits, server.runtime.workers
loaded = sorted(m for m in sys.modules if m == "grpc" or m.startswith(("grpc.", "grpc_", "uvicorn", "starlette")))
print(loaded)
sys.exit(1 if loaded else 0)
"""


def test_the_supervisors_imports_leave_grpc_unloaded():
    done = subprocess.run([sys.executable, "-c", NO_GRPC_BEFORE_FORK], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_http_budget_is_the_one_limits():
    limits = Limits(max_message_mb=2, max_inflight_mb=6, http_body_timeout_s=7, max_concurrent=3, max_queue=1)
    budget = HttpBudget(limits)
    assert budget.max_body == 2 * 2**20 and budget.memory.budget == 6 * 2**20
    assert budget.body_timeout_s == 7 and budget.threads.total_tokens == limits.threads
