//! One body for float32 and float64 arithmetic. sacrebleu scores in float64, but inside its resampling tests numpy
//! keeps float32 statistics in float32 (numpy ≥ 2), so a formula must be computable in either precision, operation
//! for operation, for the confidence intervals to match to the last bit. Written once, generic over [`NpFloat`],
//! the two precisions cannot drift apart.

use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, Sub};

pub(crate) trait NpFloat:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + DivAssign
{
    const ZERO: Self;
    const ONE: Self;
    /// A Python float (a constant, a parameter) rounded to this precision, as numpy does when it meets an array
    /// of this type.
    fn of(x: f64) -> Self;
    fn from_usize(n: usize) -> Self;
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
    fn total_cmp(&self, other: &Self) -> Ordering;
}

macro_rules! np_float {
    ($t:ty) => {
        impl NpFloat for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn of(x: f64) -> Self {
                x as $t
            }
            fn from_usize(n: usize) -> Self {
                n as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn total_cmp(&self, other: &Self) -> Ordering {
                <$t>::total_cmp(self, other)
            }
        }
    };
}

np_float!(f32);
np_float!(f64);
