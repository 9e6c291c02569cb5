//! The one name for an engine, used everywhere an engine is chosen: the
//! backends report it, the game toggles between engines, and the command
//! line and the benchmarks parse it (`FromStr`; clap stays in the binary).

use std::fmt;
use std::str::FromStr;

/// An engine that turns chunk requests into chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// The Rust CPU path on the calling thread.
    CpuSerial,
    /// The Rust CPU path on the rayon thread pool.
    Cpu,
    /// The CUDA kernels on an NVIDIA GPU.
    Gpu,
    /// The CUDA kernel source compiled for the CPU (feature kernel-emulation).
    CudaEmulated,
    /// The rayon pool and the GPU together on one queue, shared by measured
    /// throughput (`backend::service`). A schedule of two engines, not a
    /// backend of its own.
    Hybrid,
}

impl Engine {
    pub const ALL: [Engine; 5] = [Engine::CpuSerial, Engine::Cpu, Engine::Gpu, Engine::CudaEmulated, Engine::Hybrid];

    pub fn label(self) -> &'static str {
        match self {
            Engine::CpuSerial => "cpu-serial",
            Engine::Cpu => "cpu",
            Engine::Gpu => "gpu",
            Engine::CudaEmulated => "cuda-emulated",
            Engine::Hybrid => "hybrid",
        }
    }

    /// Runs the kernels (on a GPU, or emulated).
    pub fn is_device(self) -> bool {
        matches!(self, Engine::Gpu | Engine::CudaEmulated)
    }

    /// Needs a device: a device engine, or hybrid.
    pub fn uses_device(self) -> bool {
        self.is_device() || self == Engine::Hybrid
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("unknown engine '{0}': expected one of cpu-serial, cpu, gpu, cuda-emulated, hybrid")]
pub struct UnknownEngine(pub String);

impl FromStr for Engine {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Engine, UnknownEngine> {
        Engine::ALL.into_iter().find(|e| e.label() == s).ok_or_else(|| UnknownEngine(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_parse_back_and_serialise_alike() {
        for e in Engine::ALL {
            assert_eq!(e.label().parse::<Engine>(), Ok(e));
            assert_eq!(serde_json::to_string(&e).unwrap_or_default(), format!("\"{e}\""));
        }
        let err = "GPU".parse::<Engine>().unwrap_err().to_string();
        assert!(err.contains("'GPU'") && err.contains("cuda-emulated"), "{err}");
    }
}
