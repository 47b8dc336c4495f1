"""Every public beyond state (1889, 18Chesapeake, 1846, 18AL), at every stage."""


def test_beyond(run_stage, beyond_case, stage):
    run_stage(beyond_case, stage)
