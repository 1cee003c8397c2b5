//! Runtime device choice. The CPU build is the default; `cuda` / `metal` cargo features compile the GPU
//! backends in. A face chooses once per process ([`choose`]): a GPU that the build or the machine lacks is not
//! an error there but the CPU, with the reason, so the user learns why and the work still runs. Every later model
//! load that says [`DeviceChoice::Auto`] gets that choice.
use std::sync::RwLock;

use anyhow::{bail, Result};
use candle_core::Device;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// What the process chose ([`choose`]), else the first GPU compiled in and present, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda(usize),
    Metal(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = anyhow::Error;
    /// `auto`, `cpu`, `cuda`, `cuda:1`, `metal`, `metal:0`.
    fn from_str(s: &str) -> Result<Self> {
        const EXPECTED: &str = "expected auto, cpu, cuda, cuda:N or metal";
        let (kind, idx) = match s.trim().split_once(':') {
            Some((k, i)) => {
                let idx = i.parse::<usize>().map_err(|_| anyhow::anyhow!("bad device index {i:?} in {s:?} ({EXPECTED})"))?;
                (k, Some(idx))
            }
            None => (s.trim(), None),
        };
        Ok(match (kind.to_ascii_lowercase().as_str(), idx) {
            ("auto", None) => Self::Auto,
            ("cpu", None) => Self::Cpu,
            ("auto" | "cpu", Some(_)) => bail!("{kind:?} takes no device index ({EXPECTED})"),
            ("cuda" | "gpu", i) => Self::Cuda(i.unwrap_or(0)),
            ("metal", i) => Self::Metal(i.unwrap_or(0)),
            _ => bail!("unknown device {s:?} ({EXPECTED})"),
        })
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Cpu => f.write_str("cpu"),
            Self::Cuda(i) => write!(f, "cuda:{i}"),
            Self::Metal(i) => write!(f, "metal:{i}"),
        }
    }
}

/// Backends compiled into this build.
pub fn compiled_backends() -> Vec<&'static str> {
    let mut v = vec!["cpu"];
    if cfg!(feature = "cuda") {
        v.push("cuda");
    }
    if cfg!(feature = "metal") {
        v.push("metal");
    }
    v
}

/// The process's choice, set by [`choose`]; a lock rather than a once-cell so tests and a long-lived app can change it.
static CHOSEN: RwLock<Option<(DeviceChoice, Chosen)>> = RwLock::new(None);

/// The outcome of [`choose`]: the device now in use and, when it is not the one asked for, why.
#[derive(Clone, Debug, Serialize)]
pub struct Chosen {
    pub requested: String,
    pub using: String,
    /// Set when the requested GPU could not be used and the CPU was taken instead.
    pub fallback: Option<String>,
}

/// Opens `requested` once for the whole process; a GPU that cannot be used falls back to the CPU (the reason is in
/// [`Chosen::fallback`], for the face to show). Later loads that say [`DeviceChoice::Auto`] use what was chosen.
pub fn choose(requested: DeviceChoice) -> Chosen {
    let (choice, device, fallback) = match open_strict(requested) {
        Ok(d) => (concrete(requested, &d), d, None),
        Err(e) => (DeviceChoice::Cpu, Device::Cpu, Some(format!("{e:#}; using the CPU instead"))),
    };
    let c = Chosen { requested: requested.to_string(), using: describe(&device), fallback };
    *CHOSEN.write().unwrap_or_else(|p| p.into_inner()) = Some((choice, c.clone()));
    c
}

/// [`choose`] what the environment variable `var` names (unset or empty: leave `auto`). Returns a warning for the
/// user when the value is not a device (then `auto` is kept) or the device cannot be used (then the CPU is taken).
pub fn choose_from_env(var: &str) -> Option<String> {
    let value = std::env::var(var).ok().filter(|v| !v.trim().is_empty())?;
    match value.parse::<DeviceChoice>() {
        Err(e) => Some(format!("{var}={value}: {e:#}; choosing the device automatically")),
        Ok(DeviceChoice::Auto) => None,
        Ok(choice) => choose(choice).fallback.map(|why| format!("{var}={value}: {why}")),
    }
}

/// What the process chose, if anything ([`choose`]).
pub fn chosen() -> Option<DeviceChoice> {
    CHOSEN.read().unwrap_or_else(|p| p.into_inner()).as_ref().map(|(c, _)| *c)
}

/// The outcome of the process's [`choose`], for reports (`registro doctor`).
pub fn last_choice() -> Option<Chosen> {
    CHOSEN.read().unwrap_or_else(|p| p.into_inner()).as_ref().map(|(_, c)| c.clone())
}

fn concrete(requested: DeviceChoice, d: &Device) -> DeviceChoice {
    match (requested, d.location()) {
        (DeviceChoice::Auto, candle_core::DeviceLocation::Cuda { gpu_id }) => DeviceChoice::Cuda(gpu_id),
        (DeviceChoice::Auto, candle_core::DeviceLocation::Metal { gpu_id }) => DeviceChoice::Metal(gpu_id),
        (DeviceChoice::Auto, candle_core::DeviceLocation::Cpu) => DeviceChoice::Cpu,
        (c, _) => c,
    }
}

/// Opens the device for a model load: `Auto` is the process's choice, else the best available. An explicit GPU
/// that cannot be opened is an error naming the reason.
pub fn open(choice: DeviceChoice) -> Result<Device> {
    match (choice, chosen()) {
        (DeviceChoice::Auto, Some(c)) => open_strict(c),
        (c, _) => open_strict(c),
    }
}

fn open_strict(choice: DeviceChoice) -> Result<Device> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::Cpu),
        DeviceChoice::Auto => {
            if cfg!(feature = "cuda") {
                if let Ok(d) = open_cuda(0) {
                    return Ok(d);
                }
            }
            if cfg!(feature = "metal") {
                if let Ok(d) = Device::new_metal(0) {
                    return Ok(d);
                }
            }
            Ok(Device::Cpu)
        }
        DeviceChoice::Cuda(i) => {
            if !cfg!(feature = "cuda") {
                bail!("CUDA was requested but this build has no CUDA support (rebuild with `--features cuda`, see scripts/check-gpu-build.sh)");
            }
            open_cuda(i)
        }
        DeviceChoice::Metal(i) => {
            if !cfg!(feature = "metal") {
                bail!("Metal was requested but this build has no Metal support (rebuild with `--features metal` on macOS)");
            }
            match std::panic::catch_unwind(|| Device::new_metal(i)) {
                Ok(Ok(d)) => Ok(d),
                Ok(Err(e)) => bail!("Metal device {i} is not available: {}", first_line(&e)),
                Err(_) => bail!("Metal device {i} is not available: the Metal framework failed while opening it"),
            }
        }
    }
}

/// candle appends a backtrace to its errors when RUST_BACKTRACE is set: the user needs the reason, not the frames.
fn first_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// Driver errors name enum constants; say what they mean for the user.
/// Opens CUDA device `i` and runs one of candle's kernels on it. Opening alone proves little: the kernels are PTX
/// that the driver compiles on first use, and a driver older than the toolkit that built them refuses every one
/// (seen on an H200 with driver 580.159 and kernels from CUDA 13.4) — better found here, with the reason and the
/// CPU taken, than at the first model load.
fn open_cuda(i: usize) -> Result<Device> {
    if let Some(missing) = cuda_libraries_missing() {
        bail!("CUDA device {i} is not available: {missing}");
    }
    exact_quantized_cuda_kernels();
    // candle panics on some driver failures (a stub or mismatched libcuda); a panic is a failure to open.
    let opened = std::panic::catch_unwind(|| -> candle_core::Result<Device> {
        let d = Device::new_cuda(i)?;
        let x = candle_core::Tensor::ones((2, 2), candle_core::DType::F32, &d)?.affine(2.0, 1.0)?;
        let sum = x.sum_all()?.to_scalar::<f32>()?;
        if sum != 12.0 {
            return Err(candle_core::Error::Msg(format!("a test kernel computed {sum} instead of 12")));
        }
        Ok(d)
    });
    match opened {
        Ok(Ok(d)) => Ok(d),
        Ok(Err(e)) => bail!("CUDA device {i} is not available: {}", cuda_hint(&first_line(&e))),
        Err(_) => bail!("CUDA device {i} is not available: the CUDA driver failed while opening it"),
    }
}

/// candle 0.11.1's fast quantized CUDA kernels (MMVQ for a few rows, MMQ for more) computed wrong products on an
/// H200: the same GGUF decoder gave NaN or log-probabilities of −5797 where its dequantized f32 twin, on the same
/// GPU, gave the CPU's values — for Q8_0, Q4_K and Q6_K weights 64, 512 and 896 wide. Its older dequantizing
/// kernels agree with the f32 twin to the last printed digit, so those are used. `REGISTRO_CUDA_FAST_MMQ=1` turns
/// the fast ones back on, to check a newer candle (`tests/tiny_decoders.rs`, run on a GPU, compares the two).
fn exact_quantized_cuda_kernels() {
    #[cfg(feature = "cuda")]
    candle_core::quantized::cuda::set_force_dmmv(!std::env::var("REGISTRO_CUDA_FAST_MMQ").is_ok_and(|v| v == "1"));
}

/// The CUDA build loads the driver and CUDA's libraries when a GPU is first used (cudarc's dynamic loading, which
/// scripts/check-gpu-build.sh switches on in candle-core), so one build starts on a machine without them and runs on
/// the CPU. cudarc panics on a library it cannot find, mid-load; asking first gives the user the reason, and no panic
/// message on stderr. The names are the ones cudarc tries (CUDA 13; cuRAND 10).
#[cfg(feature = "cuda")]
fn cuda_libraries_missing() -> Option<String> {
    fn present(names: &[&str]) -> bool {
        // SAFETY: opening a system library runs its initialisers; these are NVIDIA's own, which the first CUDA call
        // would run anyway. The handle is closed again at once.
        names.iter().any(|n| unsafe { libloading::Library::new(*n) }.is_ok())
    }
    let (driver, libraries): (&[&str], [(&str, &[&str]); 4]) = if cfg!(windows) {
        (
            &["nvcuda.dll"],
            [
                ("cuBLAS (cublas64_13.dll)", &["cublas64_13.dll"]),
                ("cuBLASLt (cublasLt64_13.dll)", &["cublasLt64_13.dll"]),
                ("cuRAND (curand64_10.dll)", &["curand64_10.dll"]),
                ("NVRTC (nvrtc64_130_0.dll)", &["nvrtc64_130_0.dll", "nvrtc64_13.dll"]),
            ],
        )
    } else {
        (
            &["libcuda.so.1", "libcuda.so"],
            [
                ("cuBLAS (libcublas.so.13)", &["libcublas.so.13", "libcublas.so"]),
                ("cuBLASLt (libcublasLt.so.13)", &["libcublasLt.so.13", "libcublasLt.so"]),
                ("cuRAND (libcurand.so.10)", &["libcurand.so.10", "libcurand.so"]),
                ("NVRTC (libnvrtc.so.13)", &["libnvrtc.so.13", "libnvrtc.so"]),
            ],
        )
    };
    if !present(driver) {
        return Some(format!(
            "the NVIDIA driver is not installed (no {} found): install the NVIDIA driver to use the GPU",
            driver.join(" / ")
        ));
    }
    let missing: Vec<&str> = libraries.iter().filter(|(_, names)| !present(names)).map(|(what, _)| *what).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "the NVIDIA driver is there but CUDA's libraries are not: {} not found (install the CUDA 13 runtime \
             libraries, or put their folder on {})",
            missing.join(", "),
            if cfg!(windows) { "PATH" } else { "LD_LIBRARY_PATH" }
        )
    })
}

#[cfg(not(feature = "cuda"))]
fn cuda_libraries_missing() -> Option<String> {
    None
}

fn cuda_hint(err: &str) -> String {
    let hint = if err.contains("STUB_LIBRARY") {
        " (the CUDA driver's stub library was loaded, not the driver: install the NVIDIA driver)"
    } else if err.contains("NO_DEVICE") {
        " (no NVIDIA GPU is visible: check `nvidia-smi` and CUDA_VISIBLE_DEVICES)"
    } else if err.contains("INSUFFICIENT_DRIVER") {
        " (the NVIDIA driver is older than this build's CUDA 13: update the driver)"
    } else if err.contains("UNSUPPORTED_PTX_VERSION") {
        " (this build's GPU kernels come from a newer CUDA than the NVIDIA driver knows: update the driver, or build \
         with the CUDA 13.0 toolkit that scripts/check-gpu-build.sh pins)"
    } else if err.contains("INVALID_DEVICE") {
        " (no GPU with that index)"
    } else {
        ""
    };
    format!("{err}{hint}")
}

pub fn describe(d: &Device) -> String {
    match d.location() {
        candle_core::DeviceLocation::Cpu => format!("cpu ({} threads)", candle_core::utils::get_num_threads()),
        candle_core::DeviceLocation::Cuda { gpu_id } => format!("cuda:{gpu_id}"),
        candle_core::DeviceLocation::Metal { gpu_id } => format!("metal:{gpu_id}"),
    }
}

/// A GPU the machine has, whether or not this build can use it.
#[derive(Clone, Debug, Serialize)]
pub struct Gpu {
    /// How `--device` names it (`cuda:0`).
    pub device: String,
    pub name: String,
    pub memory_bytes: Option<u64>,
    pub compute_capability: Option<String>,
    /// This build has the backend and the device opened.
    pub usable: bool,
}

/// GPUs found, plus notes on what could not be asked (no driver, a CPU-only build).
#[derive(Clone, Debug, Default, Serialize)]
pub struct GpuProbe {
    pub gpus: Vec<Gpu>,
    pub notes: Vec<String>,
}

/// Asks the compiled-in backends for their devices; a CPU-only build on Linux still lists the NVIDIA GPUs the
/// kernel driver reports, so the user learns that a CUDA build would use them.
pub fn probe_gpus() -> GpuProbe {
    let mut p = GpuProbe::default();
    #[cfg(feature = "cuda")]
    probe_cuda(&mut p);
    #[cfg(not(feature = "cuda"))]
    {
        let found = nvidia_proc_gpus();
        if !found.is_empty() {
            p.notes.push("this build has no CUDA support: rebuild with `--features cuda` to use the NVIDIA GPU".into());
        }
        p.gpus.extend(found);
    }
    #[cfg(feature = "metal")]
    match std::panic::catch_unwind(|| Device::new_metal(0)) {
        Ok(Ok(_)) => p.gpus.push(Gpu {
            device: "metal:0".into(),
            name: "Metal GPU".into(),
            memory_bytes: None,
            compute_capability: None,
            usable: true,
        }),
        Ok(Err(e)) => p.notes.push(format!("Metal: {}", first_line(&e))),
        Err(_) => p.notes.push("Metal: the framework failed while opening the device".into()),
    }
    p
}

#[cfg(feature = "cuda")]
fn probe_cuda(p: &mut GpuProbe) {
    use candle_core::cuda_backend::cudarc::driver::CudaContext;
    if let Some(missing) = cuda_libraries_missing() {
        p.notes.push(format!("CUDA not usable: {missing}"));
        return;
    }
    let count = match std::panic::catch_unwind(CudaContext::device_count) {
        Ok(Ok(n)) => n.max(0) as usize,
        Ok(Err(e)) => {
            p.notes.push(format!("CUDA driver not usable: {}", cuda_hint(&format!("{e:?}"))));
            return;
        }
        Err(_) => {
            p.notes.push("CUDA driver not usable: it failed while counting devices".into());
            return;
        }
    };
    if count == 0 {
        p.notes.push("the CUDA driver reports no GPU".into());
    }
    for i in 0..count {
        match std::panic::catch_unwind(|| CudaContext::new(i)) {
            Ok(Ok(ctx)) => p.gpus.push(Gpu {
                device: format!("cuda:{i}"),
                name: ctx.name().unwrap_or_else(|e| format!("(name unavailable: {e:?})")),
                memory_bytes: ctx.total_mem().ok().map(|b| b as u64),
                compute_capability: ctx.compute_capability().ok().map(|(a, b)| format!("{a}.{b}")),
                usable: true,
            }),
            Ok(Err(e)) => p.notes.push(format!("cuda:{i}: {}", cuda_hint(&format!("{e:?}")))),
            Err(_) => p.notes.push(format!("cuda:{i}: the driver failed while opening it")),
        }
    }
}

/// NVIDIA GPUs the Linux kernel driver lists under /proc/driver/nvidia/gpus (each `information` file is a few
/// lines; read at most 4 KiB of each).
#[cfg_attr(feature = "cuda", allow(dead_code))]
fn nvidia_proc_gpus() -> Vec<Gpu> {
    use std::io::Read;
    let Ok(dir) = std::fs::read_dir("/proc/driver/nvidia/gpus") else { return Vec::new() };
    let mut gpus = Vec::new();
    for (i, entry) in dir.flatten().take(64).enumerate() {
        let mut text = String::new();
        let read = std::fs::File::open(entry.path().join("information"))
            .and_then(|f| f.take(4096).read_to_string(&mut text));
        if read.is_err() {
            continue;
        }
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("Model:"))
            .map(|m| m.trim().to_string())
            .unwrap_or_else(|| "NVIDIA GPU".into());
        gpus.push(Gpu { device: format!("cuda:{i}"), name, memory_bytes: None, compute_capability: None, usable: false });
    }
    gpus
}

/// The CPU and the SIMD features the engine's kernels depend on.
#[derive(Clone, Debug, Serialize)]
pub struct CpuInfo {
    pub model: String,
    pub arch: &'static str,
    pub threads: usize,
    /// (feature, present) for the features that select a kernel.
    pub features: Vec<(&'static str, bool)>,
    /// Which quantized matmul kernels run on this CPU, and why.
    pub kernels: String,
}

pub fn cpu_info() -> CpuInfo {
    #[cfg(target_arch = "x86_64")]
    let features = {
        use std::arch::is_x86_feature_detected as has;
        vec![
            ("avx2", has!("avx2")),
            ("fma", has!("fma")),
            ("f16c", has!("f16c")),
            ("avx512f", has!("avx512f")),
            ("avx512bw", has!("avx512bw")),
            ("avx512vnni", has!("avx512vnni")),
            ("avxvnni", has!("avxvnni")),
        ]
    };
    #[cfg(target_arch = "aarch64")]
    let features = vec![("neon", std::arch::is_aarch64_feature_detected!("neon"))];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let features: Vec<(&'static str, bool)> = Vec::new();
    let kernels = if crate::qmatmul::available() {
        "Registro's packed kernels (AVX-512 VNNI) for Q4_K/Q6_K/Q8_0/Q5_0; candle's for the rest".to_string()
    } else if std::env::var("REGISTRO_NATIVE_QMATMUL").is_ok_and(|v| v == "0") {
        "candle's (Registro's packed kernels switched off by REGISTRO_NATIVE_QMATMUL=0)".to_string()
    } else {
        "candle's (Registro's packed kernels need AVX-512 VNNI)".to_string()
    };
    CpuInfo {
        model: cpu_model().unwrap_or_else(|| "unknown".into()),
        arch: std::env::consts::ARCH,
        threads: candle_core::utils::get_num_threads(),
        features,
        kernels,
    }
}

/// The "model name" line of /proc/cpuinfo (Linux), else None.
fn cpu_model() -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open("/proc/cpuinfo").ok()?.take(64 * 1024).read_to_string(&mut text).ok()?;
    text.lines()
        .find(|l| l.starts_with("model name") || l.starts_with("Model") || l.starts_with("Hardware"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_parse_and_print_back() {
        for s in ["auto", "cpu", "cuda:0", "cuda:3", "metal:0"] {
            assert_eq!(s.parse::<DeviceChoice>().unwrap().to_string(), s);
        }
        assert_eq!("CUDA".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda(0));
        assert_eq!("gpu:1".parse::<DeviceChoice>().unwrap(), DeviceChoice::Cuda(1));
    }

    #[test]
    fn wrong_device_names_say_what_is_expected() {
        for (s, says) in [
            ("tpu", "unknown device \"tpu\""),
            ("cuda:x", "bad device index \"x\""),
            ("cuda:", "bad device index \"\""),
            ("cuda:-1", "bad device index \"-1\""),
            ("cuda:99999999999999999999999", "bad device index"),
            ("cpu:1", "takes no device index"),
            ("", "unknown device"),
        ] {
            let e = s.parse::<DeviceChoice>().unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("expected auto, cpu, cuda"), "{s:?}: {e}");
        }
    }

    #[test]
    fn a_gpu_this_build_lacks_falls_back_to_the_cpu_with_the_reason() {
        if cfg!(feature = "cuda") {
            return;
        }
        assert!(open(DeviceChoice::Cuda(0)).unwrap_err().to_string().contains("no CUDA support"));
        let c = choose(DeviceChoice::Cuda(1));
        assert_eq!(c.requested, "cuda:1");
        assert!(c.using.starts_with("cpu"), "{c:?}");
        let why = c.fallback.expect("a fallback reason");
        assert!(why.contains("no CUDA support") && why.contains("using the CPU instead"), "{why}");
        // Later loads that leave the device to the process get the CPU, not an error.
        assert!(open(DeviceChoice::Auto).unwrap().is_cpu());
        *CHOSEN.write().unwrap() = None;
    }

    #[test]
    fn driver_errors_say_what_to_do() {
        // The error an H200 on driver 580.159 gave for kernels built by CUDA 13.4.
        let e = cuda_hint("DriverError(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, \"the provided PTX was compiled with an unsupported toolchain.\")");
        assert!(e.contains("update the driver") && e.contains("CUDA 13.0"), "{e}");
        assert!(cuda_hint("CUDA_ERROR_STUB_LIBRARY").contains("install the NVIDIA driver"));
    }

    #[test]
    fn a_device_from_the_environment_warns_instead_of_failing() {
        // A variable of this test's own: the process environment is shared by the tests.
        let var = "REGISTRO_TEST_DEVICE_FROM_ENV";
        std::env::set_var(var, "abacus");
        let w = choose_from_env(var).expect("a warning");
        assert!(w.contains("REGISTRO_TEST_DEVICE_FROM_ENV=abacus") && w.contains("unknown device") && w.contains("automatically"), "{w}");
        std::env::set_var(var, "");
        assert!(choose_from_env(var).is_none());
        std::env::remove_var(var);
        assert!(choose_from_env(var).is_none());
    }
}
