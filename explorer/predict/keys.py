"""Session-state keys of Predict on the Stepper."""

PREDICT_ON = "predict_on"  # the Predict switch
PREDICTED = "predict_verdicts"  # step (str) -> the step's checked prediction (check.check_step's dict)
PREDICT_FOR = "predict_for"  # (program, poked) the verdicts are of: another walk starts a new score
