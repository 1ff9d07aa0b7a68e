"""The program room (the Explorer and the Stepper): a program's run, its gradient check, its rules and the Stepper's
words, forward mode, the sliders, Jacobians, the inspector, what each mode costs, presets, the graph view's data."""
