//! The benchmarks, out of the product modules: `ablation` is `registro bench translate` (the control layer's
//! steps switched on one by one over a development split, with M-Acc, BLEU and the flags of each output); the
//! evaluation and Dashboard benchmarks and their fixtures are `registro-eval`'s, re-exported here.

pub mod ablation;

pub use registro_eval::bench::*;
