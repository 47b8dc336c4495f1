"""The dense synthetic boards (optimizer.bench.synthetic), at every stage, by size class."""


def test_synthetic(run_stage, synthetic_case, stage):
    run_stage(synthetic_case, stage)
