//! A minimal NVRTC loader: compiles a kernel source to a cubin (SASS for one
//! architecture) or to PTX. Shared by the runtime fallback
//! ([`super::cuda`]) and by build.rs, which uses NVRTC 12.9 to build the
//! images for CUDA 12 drivers (so this file depends on `std` and
//! `libloading` only).
//!
//! cudarc's own NVRTC loader never looks for `libnvrtc.so.13`; this one
//! looks for every major version it knows, newest first, or for an explicit
//! path. A cubin is preferred at run time: it needs no PTX JIT, so a newer
//! NVRTC than the driver can still produce code the driver loads, as long as
//! the cubin's toolkit major version is one the driver supports.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

type Program = *mut c_void;
type Status = c_int;

pub struct Nvrtc {
    lib: libloading::Library,
    /// Where it was loaded from, for messages.
    pub name: String,
    pub version: (i32, i32),
}

/// Library names, newest first.
pub const LIBRARY_NAMES: &[&str] =
    &["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so", "nvrtc64_130_0.dll", "nvrtc64_120_0.dll"];

pub enum Output {
    /// SASS for `sm_XY`.
    Cubin,
    /// PTX for `compute_XY`.
    Ptx,
}

impl Nvrtc {
    /// The first NVRTC found under [`LIBRARY_NAMES`] (or at `path`).
    pub fn load(path: Option<&Path>) -> Result<Nvrtc, String> {
        let mut tried = Vec::new();
        let candidates: Vec<std::ffi::OsString> = match path {
            Some(p) => vec![p.as_os_str().to_owned()],
            None => LIBRARY_NAMES.iter().map(|n| n.into()).collect(),
        };
        for name in candidates {
            // SAFETY: loading NVRTC runs no initialisers with preconditions.
            match unsafe { libloading::Library::new(&name) } {
                Ok(lib) => {
                    let mut nv = Nvrtc { lib, name: name.to_string_lossy().into_owned(), version: (0, 0) };
                    let (mut major, mut minor) = (0, 0);
                    // SAFETY: nvrtcVersion(int*, int*) writes two ints.
                    let f =
                        unsafe { nv.sym::<unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status>("nvrtcVersion") }?;
                    // SAFETY: valid out pointers.
                    unsafe { f(&mut major, &mut minor) };
                    nv.version = (major, minor);
                    return Ok(nv);
                }
                Err(e) => tried.push(format!("{}: {e}", name.to_string_lossy())),
            }
        }
        Err(format!("NVRTC not found ({})", tried.join("; ")))
    }

    /// # Safety
    /// `T` must be the C signature of `name`.
    unsafe fn sym<T: Copy>(&self, name: &str) -> Result<T, String> {
        // SAFETY: forwarded to the caller.
        unsafe { self.lib.get::<T>(name.as_bytes()) }.map(|s| *s).map_err(|e| format!("{}: {name}: {e}", self.name))
    }

    /// Compiles `source` for `arch` (e.g. 89). Errors carry NVRTC's log.
    pub fn compile(&self, source: &str, file_name: &str, arch: u32, output: Output) -> Result<Vec<u8>, String> {
        type Create = unsafe extern "C" fn(
            *mut Program,
            *const c_char,
            *const c_char,
            c_int,
            *const *const c_char,
            *const *const c_char,
        ) -> Status;
        type Compile = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status;
        type Size = unsafe extern "C" fn(Program, *mut usize) -> Status;
        type Get = unsafe extern "C" fn(Program, *mut c_char) -> Status;
        type Destroy = unsafe extern "C" fn(*mut Program) -> Status;
        // SAFETY: the signatures are NVRTC's documented C API.
        let (create, compile, log_size, log, destroy) = unsafe {
            (
                self.sym::<Create>("nvrtcCreateProgram")?,
                self.sym::<Compile>("nvrtcCompileProgram")?,
                self.sym::<Size>("nvrtcGetProgramLogSize")?,
                self.sym::<Get>("nvrtcGetProgramLog")?,
                self.sym::<Destroy>("nvrtcDestroyProgram")?,
            )
        };
        let (size_name, get_name, arch_flag) = match output {
            Output::Cubin => ("nvrtcGetCUBINSize", "nvrtcGetCUBIN", format!("--gpu-architecture=sm_{arch}")),
            Output::Ptx => ("nvrtcGetPTXSize", "nvrtcGetPTX", format!("--gpu-architecture=compute_{arch}")),
        };
        // SAFETY: as above.
        let (out_size, out_get) = unsafe { (self.sym::<Size>(size_name)?, self.sym::<Get>(get_name)?) };
        let src = CString::new(source).map_err(|_| "kernel source contains a NUL byte".to_string())?;
        let name = CString::new(file_name).map_err(|_| "file name contains a NUL byte".to_string())?;
        let opts: Vec<CString> = [arch_flag.as_str(), "--fmad=false", "-std=c++17"]
            .iter()
            .map(|o| CString::new(*o).unwrap_or_default())
            .collect();
        let opt_ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut prog: Program = std::ptr::null_mut();
        // SAFETY: valid C strings; no headers.
        let status = unsafe { create(&mut prog, src.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null()) };
        if status != 0 {
            return Err(format!("{}: nvrtcCreateProgram failed ({status})", self.name));
        }
        // SAFETY: prog is valid until destroy below.
        let result = unsafe {
            let status = compile(prog, opt_ptrs.len() as c_int, opt_ptrs.as_ptr());
            if status != 0 {
                let mut n = 0usize;
                log_size(prog, &mut n);
                let mut buf = vec![0u8; n.max(1)];
                log(prog, buf.as_mut_ptr() as *mut c_char);
                let text =
                    CStr::from_bytes_until_nul(&buf).map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                Err(format!(
                    "NVRTC {}.{} could not compile {file_name} for {arch}: {text}",
                    self.version.0, self.version.1
                ))
            } else {
                let mut n = 0usize;
                if out_size(prog, &mut n) != 0 {
                    Err(format!("{}: {size_name} failed", self.name))
                } else {
                    let mut buf = vec![0u8; n];
                    if out_get(prog, buf.as_mut_ptr() as *mut c_char) != 0 {
                        Err(format!("{}: {get_name} failed", self.name))
                    } else {
                        Ok(buf)
                    }
                }
            }
        };
        // SAFETY: destroys the program created above.
        unsafe { destroy(&mut prog) };
        result
    }
}
