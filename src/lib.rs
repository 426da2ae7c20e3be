//! Runnable examples of errtrace, and the guide's and README's code, tested.
