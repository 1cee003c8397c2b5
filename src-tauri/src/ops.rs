//! Long operations in flight, by the id the UI gave them, so a `cancel_operation` call can reach the loop doing
//! the work. The guard unregisters the id however the operation ends (done, error, panic).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use registro_core::progress::CancelToken;

#[derive(Default, Clone)]
pub struct Operations(Arc<Mutex<HashMap<String, CancelToken>>>);

pub struct OpGuard {
    ops: Operations,
    id: String,
    pub token: CancelToken,
}

impl Operations {
    /// Registers `id` and returns its token. Reusing an id still running cancels nothing: the new operation gets
    /// its own token and the old one keeps running until it ends.
    pub fn start(&self, id: &str) -> OpGuard {
        let token = CancelToken::new();
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), token.clone());
        OpGuard { ops: self.clone(), id: id.to_string(), token }
    }

    /// Flips the token of operation `id`; false when no such operation is running (it may have just finished).
    pub fn cancel(&self, id: &str) -> bool {
        match self.0.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}

impl Drop for OpGuard {
    fn drop(&mut self) {
        let mut map = self.ops.0.lock().unwrap_or_else(|p| p.into_inner());
        // Only remove our own entry, not a newer operation that reused the id.
        if map.get(&self.id).is_some_and(|t| std::ptr::eq(t.flag(), self.token.flag())) {
            map.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_reaches_the_running_operation_and_ends_with_it() {
        let ops = Operations::default();
        let guard = ops.start("import-1");
        assert!(!guard.token.is_cancelled());
        assert!(ops.cancel("import-1"));
        assert!(guard.token.is_cancelled());
        drop(guard);
        assert!(!ops.cancel("import-1"), "a finished operation can no longer be cancelled");
    }
}
