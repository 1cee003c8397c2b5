//! What a comparison computed in this process and the store does not hold yet: the LeD pairs and the resampled
//! scores keep it the same way, each value with whether it has been handed to the store.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct Computed<K, V>(Mutex<HashMap<K, (V, bool)>>);

impl<K, V> Default for Computed<K, V> {
    fn default() -> Self {
        Computed(Mutex::new(HashMap::new()))
    }
}

impl<K: Copy + Eq + Hash, V: Clone> Computed<K, V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<K, (V, bool)>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.lock().get(key).map(|(v, _)| v.clone())
    }

    /// The keys of everything computed.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Vec<K> {
        self.lock().keys().copied().collect()
    }

    /// Adds values the store does not hold yet.
    pub(crate) fn insert_all(&self, values: impl IntoIterator<Item = (K, V)>) {
        let mut computed = self.lock();
        for (k, v) in values {
            computed.insert(k, (v, false));
        }
    }

    /// Forgets everything computed (for benchmarks that time a first comparison).
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// The store rows `row` makes of the values not handed to the store yet; each value it makes a row of is
    /// handed over once.
    pub(crate) fn take_unstored<R>(&self, mut row: impl FnMut(K, &V) -> Option<R>) -> Vec<R> {
        self.lock()
            .iter_mut()
            .filter(|(_, (_, saved))| !*saved)
            .filter_map(|(&k, (v, saved))| {
                let r = row(k, v)?;
                *saved = true;
                Some(r)
            })
            .collect()
    }
}
