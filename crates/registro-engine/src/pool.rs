//! The thread pool Registro's own kernels run on (packed matmuls, activation quantization, decode-step attention,
//! weight packing at load).
//!
//! candle's barrier pool, which they used before, ends every call by spinning until each worker has reported,
//! including a worker the OS has not scheduled yet. On a machine with anything else running that is a wait of a
//! time slice per call, and a decode step makes hundreds of calls: with a build on the other core of this 2-core
//! machine, 20 sentences with gemma-3-270m took 27-34 s on two threads against 11-14 s on one, and a third of the
//! CPU time went to that spin (perf). Here a worker must *claim* a call before it touches it; the calling thread
//! works through the chunks itself and, when it runs out, withdraws the call from every worker that has not
//! claimed it yet, so it waits only for chunks that are really being computed elsewhere. With nothing else
//! running, the workers claim every call as before.
//!
//! Chunks are handed out from a shared cursor, so which thread computes a chunk never changes what the chunk
//! computes: results are the same bit for bit whatever the scheduling.
use std::cell::{Cell, UnsafeCell};
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;

/// How long an idle worker polls for the next call before it sleeps: a decode step's calls come tens of
/// microseconds apart, and waking a sleeping thread (a futex and, in a VM, an interrupt to another core) cost
/// single-row decoding of Qwen2.5-1.5B 12% when workers slept after ~0.1 ms. So a worker polls (~50 µs), then
/// polls between `yield`s, which hand its core to anything else that wants it (~0.5-1 ms with nothing else
/// running), and only then sleeps.
const IDLE_SPINS: u32 = 2_000;
const IDLE_YIELDS: u32 = 500;
/// How long the caller polls for a claimed chunk to finish before it yields its core (to that worker, if the OS
/// put both on one core, or to whatever else is running).
const WAIT_SPINS: u32 = 200;

/// How long candle's own pool workers poll after each of candle's calls, unless the user set it: they spin 25,000
/// times (0.6 ms on an AMD EPYC) after every candle call, on the core this pool's worker needs for the Registro
/// kernel that follows; at 2,000 the batched document decode of `registro bench engine` is back to what it was
/// when every kernel ran on candle's pool.
const CANDLE_SPIN_LIMIT: &str = "2000";

/// Call first in `main`, before any thread starts (it sets an environment variable candle reads once).
pub fn prepare_process() {
    if std::env::var_os("CANDLE_BARRIER_POOL_SPIN_LIMIT").is_none() {
        std::env::set_var("CANDLE_BARRIER_POOL_SPIN_LIMIT", CANDLE_SPIN_LIMIT);
    }
}

/// Threads a call may use, the caller included: candle's own setting (`CANDLE_NUM_THREADS`, else rayon's
/// `RAYON_NUM_THREADS`, else every core), so one knob sizes both pools.
pub fn threads() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("CANDLE_NUM_THREADS")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(candle_core::utils::get_num_threads)
            .max(1)
    })
}

/// Runs `f` over `0..n_items` split into chunks, on the calling thread and the pool's workers. Runs inline when
/// the pool has no workers, when called from a worker, or when another thread's call holds the pool (two
/// callers then each compute on their own thread instead of one waiting for the other).
pub(crate) fn for_each_chunk(n_items: usize, f: impl Fn(Range<usize>) + Sync) {
    if n_items == 0 {
        return;
    }
    let inline = n_items == 1 || IN_WORKER.with(Cell::get);
    let pool = if inline { None } else { pool() };
    let Some(pool) = pool else { return f(0..n_items) };
    let Ok(mut generation) = pool.call.try_lock() else { return f(0..n_items) };
    let chunk = n_items.div_ceil((pool.slots.len() + 1) * 8).max(1);
    let job = Job { cursor: AtomicUsize::new(0), chunk, n_items, f: &f, panicked: AtomicBool::new(false) };
    *generation = generation.wrapping_add(1);
    let g = *generation;
    // SAFETY: no worker reads the call while the lock is held by a finished call: each one either claimed the
    // previous generation (and the caller waited for its `done`) or the caller withdrew it.
    unsafe { *pool.job.get() = Some(JobRef::new(&job)) };
    for slot in pool.slots.iter() {
        slot.go.store(g, Ordering::Release);
        if let Some(t) = slot.thread.get() {
            t.unpark();
        }
    }
    // The caller's own chunks may panic too; the workers still hold `job` until the waits below.
    let mine = catch_unwind(AssertUnwindSafe(|| job.run()));
    for slot in pool.slots.iter() {
        // Withdraw the call from a worker that has not claimed it; otherwise wait for its last chunk.
        if slot.claim.compare_exchange(g.wrapping_sub(1), g, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            continue;
        }
        let mut spins = 0u32;
        while slot.done.load(Ordering::Acquire) != g {
            if spins < WAIT_SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
    // SAFETY: every worker has finished with or never claimed this call, so nothing points at `job` any more.
    unsafe { *pool.job.get() = None };
    drop(generation);
    if let Err(payload) = mine {
        std::panic::resume_unwind(payload);
    }
    if job.panicked.load(Ordering::Relaxed) {
        panic!("a pool worker panicked in a kernel");
    }
}

thread_local! {
    static IN_WORKER: Cell<bool> = const { Cell::new(false) };
}

struct Slot {
    /// The last generation the caller started.
    go: AtomicUsize,
    /// The last generation this worker claimed or the caller withdrew; exactly one of them moves it to each
    /// generation, so the two never both believe they own the worker's part.
    claim: AtomicUsize,
    /// The last generation this worker finished.
    done: AtomicUsize,
    thread: OnceLock<Thread>,
}

struct Pool {
    /// Held for one call; its value is the current generation.
    call: Mutex<usize>,
    job: UnsafeCell<Option<JobRef>>,
    slots: Box<[Slot]>,
}

// SAFETY: `job` is written only by the holder of `call`, and read by a worker only between claiming a generation
// (after the caller wrote it) and reporting `done` (before the caller clears it).
unsafe impl Sync for Pool {}

struct Job<'a, F> {
    cursor: AtomicUsize,
    chunk: usize,
    n_items: usize,
    f: &'a F,
    panicked: AtomicBool,
}

impl<F: Fn(Range<usize>) + Sync> Job<'_, F> {
    fn run(&self) {
        loop {
            let start = self.cursor.fetch_add(self.chunk, Ordering::Relaxed);
            if start >= self.n_items {
                return;
            }
            (self.f)(start..self.n_items.min(start + self.chunk));
        }
    }
}

/// A type-erased pointer to the caller's `Job`, valid while its generation is claimed.
#[derive(Clone, Copy)]
struct JobRef {
    data: *const (),
    run: unsafe fn(*const ()),
}

// SAFETY: the pointed-to `Job` is `Sync` (its closure is `Sync`, its counters atomic) and outlives every use.
unsafe impl Send for JobRef {}

impl JobRef {
    fn new<F: Fn(Range<usize>) + Sync>(job: &Job<'_, F>) -> Self {
        /// # Safety
        /// `data` must point to a live `Job<'_, F>`.
        unsafe fn run<F: Fn(Range<usize>) + Sync>(data: *const ()) {
            let job = &*(data as *const Job<'_, F>);
            if catch_unwind(AssertUnwindSafe(|| job.run())).is_err() {
                job.panicked.store(true, Ordering::Relaxed);
            }
        }
        JobRef { data: job as *const Job<'_, F> as *const (), run: run::<F> }
    }
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<&'static Pool>> = OnceLock::new();
    *POOL.get_or_init(|| {
        let workers = threads() - 1;
        if workers == 0 {
            return None;
        }
        let slots = (0..workers)
            .map(|_| Slot { go: AtomicUsize::new(0), claim: AtomicUsize::new(0), done: AtomicUsize::new(0), thread: OnceLock::new() })
            .collect();
        // Lives as long as the process, like candle's pool: workers hold a `'static` reference.
        let pool: &'static Pool = Box::leak(Box::new(Pool { call: Mutex::new(0), job: UnsafeCell::new(None), slots }));
        for (i, slot) in pool.slots.iter().enumerate() {
            let spawned = std::thread::Builder::new().name(format!("registro-pool-{i}")).spawn(move || work(pool, i));
            // A worker that could not start never claims a call: the caller computes its share.
            if let Ok(handle) = spawned {
                let _ = slot.thread.set(handle.thread().clone());
            }
        }
        Some(pool)
    })
}

fn work(pool: &'static Pool, index: usize) {
    IN_WORKER.with(|w| w.set(true));
    let slot = &pool.slots[index];
    let mut seen = 0usize;
    loop {
        let mut spins = 0u32;
        let g = loop {
            let g = slot.go.load(Ordering::Acquire);
            if g != seen {
                break g;
            }
            if spins < IDLE_SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else if spins < IDLE_SPINS + IDLE_YIELDS {
                spins += 1;
                std::thread::yield_now();
            } else {
                // An unpark before this park makes it return at once: no wake-up is lost.
                std::thread::park();
                spins = 0;
            }
        };
        seen = g;
        if slot.claim.compare_exchange(g.wrapping_sub(1), g, Ordering::AcqRel, Ordering::Acquire).is_err() {
            // Withdrawn (the caller finished without this worker), or a later generation is already running.
            continue;
        }
        // SAFETY: claimed generation `g`: the caller wrote its job before publishing `g` and clears it only after
        // this worker reports `done`.
        if let Some(job) = unsafe { *pool.job.get() } {
            unsafe { (job.run)(job.data) };
        }
        slot.done.store(g, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index is visited exactly once, whatever the chunking and however many calls run at once.
    #[test]
    fn each_index_is_visited_once_from_many_threads_at_once() {
        std::thread::scope(|s| {
            for t in 0..4 {
                s.spawn(move || {
                    for n in [0usize, 1, 2, 7, 64, 1000, 4097] {
                        let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                        for_each_chunk(n, |r| {
                            for i in r {
                                hits[i].fetch_add(1, Ordering::Relaxed);
                            }
                        });
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "thread {t}, {n} items");
                    }
                });
            }
        });
    }

    /// A second caller does not wait for the pool while another call holds it: it computes on its own thread
    /// (the app's meaning check beside a translation's decode). Here the first call cannot finish until the
    /// second one has.
    #[test]
    fn a_second_caller_computes_while_the_pool_is_busy() {
        let second_done = AtomicBool::new(false);
        // Bounded, so a second caller that waited for the pool fails the test instead of hanging it.
        let first_gave_up = AtomicBool::new(false);
        std::thread::scope(|s| {
            let first = s.spawn(|| {
                let start = std::time::Instant::now();
                for_each_chunk(2, |r| {
                    if r.start == 0 {
                        while !second_done.load(Ordering::Acquire) {
                            if start.elapsed() > std::time::Duration::from_secs(20) {
                                first_gave_up.store(true, Ordering::Release);
                                return;
                            }
                            std::thread::yield_now();
                        }
                    }
                });
            });
            // Give the first call time to take the pool (if it has not, the second call simply takes it).
            std::thread::sleep(std::time::Duration::from_millis(50));
            let sum = AtomicUsize::new(0);
            for_each_chunk(100, |r| {
                sum.fetch_add(r.map(|i| i + 1).sum::<usize>(), Ordering::Relaxed);
            });
            assert_eq!(sum.load(Ordering::Relaxed), 5050);
            second_done.store(true, Ordering::Release);
            first.join().unwrap();
        });
        assert!(!first_gave_up.load(Ordering::Acquire), "the second caller waited for the busy pool");
    }

    /// Many short calls in a row (a decode step's pattern) finish and stay correct while the workers sleep and wake.
    #[test]
    fn thousands_of_short_calls_finish() {
        let total = AtomicUsize::new(0);
        for i in 0..5_000usize {
            for_each_chunk(16 + i % 7, |r| {
                total.fetch_add(r.len(), Ordering::Relaxed);
            });
        }
        let want: usize = (0..5_000usize).map(|i| 16 + i % 7).sum();
        assert_eq!(total.load(Ordering::Relaxed), want);
    }
}
