"""Settings.blas_threads: a loaded Tutor caps numpy's BLAS threads (threads.py says why), 0 leaves them."""

from threadpoolctl import threadpool_info, threadpool_limits

from s2r_tutor import Tutor


def blas_threads() -> int:
    """numpy's BLAS (the one the answer's neighbour votes run on)."""
    return next(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas" and "numpy" in lib["filepath"])


def test_a_loaded_tutor_runs_blas_on_one_thread_and_zero_leaves_it_alone(settings):
    threadpool_limits(limits=2, user_api="blas")
    before = blas_threads()
    Tutor.load(settings, progress=False, blas_threads=0)
    assert before == 2 and blas_threads() == 2  # 0: the host's choice stands
    tutor = Tutor.load(settings, progress=False)
    assert tutor.settings.blas_threads == 1 and blas_threads() == 1
    assert tutor.ask("什么是域随机化？").citations  # answers as before
