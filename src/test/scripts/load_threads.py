"""Runs load clients on threads of one process and fails the run when any of them fails (shared by approval-cycle.py
and todo-readers.py)."""
import threading


def run_all(target, argument_lists):
    """Calls target once per tuple of arguments, each on its own thread, waits for all, then exits with the first error:
    an exception on a thread would otherwise end only that thread."""
    errors = []

    def guarded(*args):
        try:
            target(*args)
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=args) for args in argument_lists]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"{len(errors)} of {len(threads)} clients failed, the first with: {errors[0]}")
