//! Rule-set generators shared by the benchmarks.
