//! Runtime device choice. The CPU build is the default; `cuda` / `metal` cargo features compile the GPU
//! backends in, and asking for a device the build or the machine lacks is an error that says which.
use anyhow::{bail, Result};
use candle_core::Device;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The first GPU compiled in and present, else the CPU.
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
        let (kind, idx) = match s.split_once(':') {
            Some((k, i)) => (k, i.parse::<usize>().map_err(|_| anyhow::anyhow!("bad device index in {s:?}"))?),
            None => (s, 0),
        };
        Ok(match kind.to_ascii_lowercase().as_str() {
            "auto" => Self::Auto,
            "cpu" => Self::Cpu,
            "cuda" | "gpu" => Self::Cuda(idx),
            "metal" => Self::Metal(idx),
            _ => bail!("unknown device {s:?} (expected auto, cpu, cuda[:N] or metal[:N])"),
        })
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

pub fn open(choice: DeviceChoice) -> Result<Device> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::Cpu),
        DeviceChoice::Auto => {
            if cfg!(feature = "cuda") && candle_core::utils::cuda_is_available() {
                if let Ok(d) = Device::new_cuda(0) {
                    return Ok(d);
                }
            }
            if cfg!(feature = "metal") && candle_core::utils::metal_is_available() {
                if let Ok(d) = Device::new_metal(0) {
                    return Ok(d);
                }
            }
            Ok(Device::Cpu)
        }
        DeviceChoice::Cuda(i) => {
            if !cfg!(feature = "cuda") {
                bail!("CUDA was requested but this build has no CUDA support; rebuild with `--features cuda` (needs the CUDA toolkit), or use --device cpu");
            }
            Device::new_cuda(i).map_err(|e| anyhow::anyhow!("CUDA device {i} is not available: {e}"))
        }
        DeviceChoice::Metal(i) => {
            if !cfg!(feature = "metal") {
                bail!("Metal was requested but this build has no Metal support; rebuild with `--features metal` on macOS, or use --device cpu");
            }
            Device::new_metal(i).map_err(|e| anyhow::anyhow!("Metal device {i} is not available: {e}"))
        }
    }
}

pub fn describe(d: &Device) -> String {
    match d {
        Device::Cpu => format!("cpu ({} threads)", candle_core::utils::get_num_threads()),
        Device::Cuda(_) => "cuda".into(),
        Device::Metal(_) => "metal".into(),
    }
}
