"""Every public corpus state, at every stage: read board, build graph, search, end to end."""


def test_corpus(run_stage, corpus_case, stage):
    run_stage(corpus_case, stage)
