//! The player's choice of engine: the CPU, the GPU, or both (hybrid).
//!
//! Opening a device means driver initialisation, a context, loading the
//! kernel image and, on old drivers, compiling it with NVRTC: from tens of
//! milliseconds to seconds. None of that may happen inside a frame, so the
//! device is opened on its own thread. Until it is ready the CPU keeps
//! generating; the generation service switches its lanes between batches,
//! so no request is lost either way.

use crate::backend::cpu::CpuBackend;
use crate::backend::fallback::FallbackBackend;
use crate::backend::service::{Command, GenerationService};
use crate::backend::{self, BackendError, ChunkBackend, Device, Engine};
use crate::world::coords::ChunkPos;
use crate::worldgen::WorldGen;
use crossbeam_channel::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a request to switch engine did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Switch {
    /// The service uses the requested engine from its next batch.
    Done,
    /// The device is being opened; the CPU generates until it is ready.
    Opening,
    /// The GPU cannot be used; generation stays on the CPU.
    Unavailable(String),
}

/// A device that opened, with its description taken once: asking the
/// backend later would wait for the batch it is running.
struct OpenGpu {
    backend: Arc<FallbackBackend>,
    description: String,
}

type Opened = Result<OpenGpu, BackendError>;

pub struct EngineSwitch {
    world: Arc<WorldGen>,
    /// The engine the toggle's GPU side means for this run: the real
    /// device, or (in kernel-emulation builds, for tests) the emulation,
    /// and how it runs.
    device: Device,
    /// What the player asked for last.
    wanted: Engine,
    /// What the generation service is running.
    active: Engine,
    gpu: Option<OpenGpu>,
    opening: Option<Receiver<Opened>>,
    off_reason: Option<String>,
    /// The longest time the caller's thread spent in one switch call.
    longest_call: Duration,
    /// The CPU lane's engine, one for the run so its measured throughput
    /// survives switches.
    cpu: Arc<dyn ChunkBackend>,
}

impl EngineSwitch {
    /// `device` is [`Engine::Gpu`] or [`Engine::CudaEmulated`].
    pub fn new(world: Arc<WorldGen>, device: Device) -> EngineSwitch {
        debug_assert!(device.engine.is_device(), "{} is not a device", device.engine);
        EngineSwitch {
            world: world.clone(),
            device,
            wanted: Engine::Cpu,
            active: Engine::Cpu,
            gpu: None,
            opening: None,
            off_reason: None,
            longest_call: Duration::ZERO,
            cpu: Arc::new(CpuBackend::parallel(world)),
        }
    }

    /// Runs the CPU lane on one thread (the benchmarks' "1 CPU thread").
    pub fn use_serial_cpu(&mut self, service: &GenerationService) {
        self.cpu = Arc::new(CpuBackend::serial(self.world.clone()));
        self.apply(service);
    }

    /// The CPU lane's engine, for the service's first lane.
    pub fn cpu_backend(&self) -> Arc<dyn ChunkBackend> {
        self.cpu.clone()
    }

    /// The engine the service is running now.
    pub fn active(&self) -> Engine {
        self.active
    }

    /// The engine the player asked for (it may still be opening).
    pub fn wanted(&self) -> Engine {
        self.wanted
    }

    pub fn is_opening(&self) -> bool {
        self.opening.is_some()
    }

    /// The longest a single switch call kept its caller (the game thread).
    pub fn longest_call(&self) -> Duration {
        self.longest_call
    }

    /// Asks for `engine`. Never waits for a device.
    pub fn request(&mut self, engine: Engine, service: &GenerationService) -> Switch {
        let t = Instant::now();
        let out = self.request_inner(engine, service);
        self.longest_call = self.longest_call.max(t.elapsed());
        out
    }

    /// Either device engine means this run's device; either CPU engine
    /// means the pool; hybrid means both.
    fn request_inner(&mut self, engine: Engine, service: &GenerationService) -> Switch {
        self.wanted = match engine {
            Engine::Cpu | Engine::CpuSerial => Engine::Cpu,
            Engine::Hybrid => Engine::Hybrid,
            Engine::Gpu | Engine::CudaEmulated => self.device.engine,
        };
        if !self.wanted.uses_device() || self.gpu.is_some() {
            self.apply(service);
            return Switch::Done;
        }
        if self.opening.is_some() {
            return Switch::Opening;
        }
        self.off_reason = None;
        match self.spawn_opener() {
            Ok(rx) => {
                self.opening = Some(rx);
                Switch::Opening
            }
            Err(reason) => self.unavailable(reason),
        }
    }

    /// Gives the service's lanes what is wanted, as far as the device is
    /// open: the CPU lane stands in until it is.
    fn apply(&mut self, service: &GenerationService) {
        let gpu = self.gpu.as_ref().map(|g| g.backend.clone() as Arc<dyn ChunkBackend>);
        let (cpu, device, active) = match (self.wanted, gpu) {
            (Engine::Hybrid, Some(g)) => (Some(self.cpu.clone()), Some(g), Engine::Hybrid),
            (w, Some(g)) if w.is_device() => (None, Some(g), self.device.engine),
            _ => (Some(self.cpu.clone()), None, Engine::Cpu),
        };
        service.send(Command::SetLanes { cpu, device });
        self.active = active;
    }

    fn spawn_opener(&self) -> Result<Receiver<Opened>, String> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let (world, device) = (self.world.clone(), self.device.clone());
        std::thread::Builder::new()
            .name("gpu-open".into())
            .spawn(move || {
                // The receiver may be gone (the game quit): nothing to tell.
                let _ = tx.send(open(world, device));
            })
            .map_err(|e| format!("cannot start a thread to open the device: {e}"))?;
        Ok(rx)
    }

    /// Takes in a finished open. Returns a line for the player when the
    /// state changed (the GPU is on, or it could not open).
    pub fn poll(&mut self, service: &GenerationService) -> Option<String> {
        let t = Instant::now();
        let out = self.poll_inner(service);
        self.longest_call = self.longest_call.max(t.elapsed());
        out
    }

    fn poll_inner(&mut self, service: &GenerationService) -> Option<String> {
        let result = match self.opening.as_ref()?.try_recv() {
            Ok(r) => r,
            Err(TryRecvError::Empty) => return None,
            Err(TryRecvError::Disconnected) => Err(BackendError::Unavailable("the device opener stopped".into())),
        };
        self.finish(result, service)
    }

    /// Waits up to `timeout` for a device being opened (headless runs and
    /// benchmarks, which must not measure the CPU standing in meanwhile).
    pub fn wait_opened(&mut self, service: &GenerationService, timeout: Duration) -> Switch {
        if let Some(rx) = &self.opening {
            let result = rx.recv_timeout(timeout).unwrap_or_else(|_| {
                Err(BackendError::Unavailable(format!("the device did not open within {timeout:?}")))
            });
            self.finish(result, service);
        }
        match &self.off_reason {
            Some(reason) if self.active == Engine::Cpu && self.gpu.is_none() => Switch::Unavailable(reason.clone()),
            _ => Switch::Done,
        }
    }

    fn finish(&mut self, result: Opened, service: &GenerationService) -> Option<String> {
        self.opening = None;
        match result {
            Ok(gpu) => {
                self.gpu = Some(gpu);
                if self.wanted.uses_device() {
                    self.apply(service);
                    return Some(format!("generation: {}", self.label()));
                }
                None
            }
            Err(e) => {
                let reason = e.to_string();
                self.unavailable(reason.clone());
                Some(format!("GPU unavailable, staying on the CPU: {reason}"))
            }
        }
    }

    fn unavailable(&mut self, reason: String) -> Switch {
        self.off_reason = Some(reason.clone());
        self.wanted = Engine::Cpu;
        Switch::Unavailable(reason)
    }

    /// The open device while generation uses it and it has not failed:
    /// far terrain may take its columns there between chunk batches.
    pub fn far_device(&self) -> Option<Arc<dyn ChunkBackend>> {
        let g = self.gpu.as_ref()?;
        (self.active.uses_device() && g.backend.failure().is_none()).then(|| g.backend.clone() as Arc<dyn ChunkBackend>)
    }

    /// Why the GPU is not generating, if it is not.
    pub fn off_reason(&self) -> Option<String> {
        if let Some(f) = self.gpu.as_ref().and_then(|g| g.backend.failure()) {
            return Some(format!("device failed, CPU took over: {f}"));
        }
        self.off_reason.clone()
    }

    /// What generates now, for the overlay: the device's name when it is a GPU.
    pub fn label(&self) -> String {
        match (self.active, &self.gpu) {
            (Engine::Hybrid, Some(g)) if g.backend.failure().is_none() => {
                format!("hybrid: CPU + {}", self.device_label(g))
            }
            (Engine::Hybrid, _) => "hybrid: CPU (GPU failed)".into(),
            (e, Some(g)) if e.is_device() && g.backend.failure().is_none() => self.device_label(g),
            (e, _) if e.is_device() => "CPU (GPU failed)".into(),
            _ if self.opening.is_some() && self.wanted.uses_device() => "CPU (opening the GPU…)".into(),
            _ => "CPU".into(),
        }
    }

    fn device_label(&self, g: &OpenGpu) -> String {
        match self.device.engine {
            Engine::CudaEmulated => format!("GPU (emulated kernels) {}", g.description),
            _ => g.description.clone(),
        }
    }
}

fn open(world: Arc<WorldGen>, device: Device) -> Opened {
    let primary = backend::create(device.engine, world.clone(), &device.options)?;
    // A device's first launch pays for lazy module loading (CUDA's default
    // since 11.7) and, under the driver stand-in, the emulation's start-up.
    // Paid here, on the opening thread, it is not taken for the device's
    // speed by the scheduler's first measuring batch, which would then
    // leave a fast device idle. A failure here is not final: the first
    // real batch meets it again, and the CPU behind takes over.
    let _ = primary.generate(&[ChunkPos::new(0, 0, 0)]);
    let description = primary.describe();
    Ok(OpenGpu { backend: Arc::new(FallbackBackend::new(primary, CpuBackend::parallel(world))), description })
}
