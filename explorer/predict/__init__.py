"""Predict, on the Stepper: before a backward step plays, the learner says what each parent will receive."""
