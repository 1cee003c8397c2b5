//! glibc malloc settings for inference on the CPU.
//!
//! Every forward pass allocates and frees activation, logits and KV buffers of a few hundred kB to a few MB.
//! With glibc's defaults those go through fresh `mmap`s that the kernel must zero on first touch; on the VMs
//! we measured, page faults were a third of the time of a beam-search translation. Keeping freed memory in the
//! heap lets the next token reuse it.

/// Raises the mmap and trim thresholds once per process (a user's own `GLIBC_TUNABLES` wins).
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            if std::env::var_os("GLIBC_TUNABLES").is_some() {
                return;
            }
            // SAFETY: mallopt only changes allocator parameters; called before any large allocation of ours.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
            }
        });
    }
}
