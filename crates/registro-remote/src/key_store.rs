//! The API key of a backend in the OS keyring (Secret Service on Linux — GNOME Keyring, KWallet —, the Keychain on
//! macOS, the Credential Manager on Windows), one entry per API base, so it never has to sit in a settings file, a
//! shell history or the store. `REGISTRO_API_KEY` still wins over it ([`crate::Config::new`]).
//!
//! Every message here says what failed with the keyring, never the key: the keyring's own errors carry no secret
//! and are shown by their `Display` only.
use anyhow::{bail, Result};

use crate::{normalise_url, ApiKey};

/// The keyring service the entries are filed under; the user name is the backend's API base.
const SERVICE: &str = "registro";

fn entry(url: &str) -> Result<keyring::Entry> {
    let base = normalise_url(url)?;
    keyring::Entry::new(SERVICE, &base).map_err(|e| keyring_error(&base, "open an entry for", e))
}

/// Stores `key` (as typed or pasted: surrounding blanks dropped; empty or with control characters refused) for the
/// backend at `url`, replacing one stored before.
pub fn store_key(url: &str, key: &str) -> Result<()> {
    let base = normalise_url(url)?;
    let key = match ApiKey::new(key) {
        Some(k) if !k.0.chars().any(char::is_control) => k,
        Some(_) => bail!("the API key contains control characters; paste the key alone"),
        None => bail!("the API key is empty"),
    };
    entry(&base)?
        .set_password(&key.0)
        .map_err(|e| keyring_error(&base, "store the API key for", e))
}

/// Removes the stored key of the backend at `url`; `false` when there was none.
pub fn clear_key(url: &str) -> Result<bool> {
    let base = normalise_url(url)?;
    match entry(&base)?.delete_credential() {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(e) => Err(keyring_error(&base, "remove the API key of", e)),
    }
}

/// The key stored for the backend at `url`, if any. An error only when the keyring itself fails (none running,
/// locked and refusing, a damaged entry).
pub fn stored_key(url: &str) -> Result<Option<ApiKey>> {
    let base = normalise_url(url)?;
    match entry(&base)?.get_password() {
        Ok(k) => Ok(ApiKey::new(&k)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(keyring_error(&base, "read the API key of", e)),
    }
}

fn keyring_error(base: &str, what: &str, e: keyring::Error) -> anyhow::Error {
    match e {
        keyring::Error::NoStorageAccess(_) | keyring::Error::PlatformFailure(_) => anyhow::anyhow!(
            "cannot {what} {base}: no OS keyring is available ({e}). On Linux a Secret Service (GNOME Keyring or \
             KWallet) must run in your session; without one, set REGISTRO_API_KEY in the environment instead"
        ),
        keyring::Error::BadEncoding(_) => anyhow::anyhow!(
            "cannot {what} {base}: the keyring entry is not text; remove it (registro backend key clear --url {base}) and store the key again"
        ),
        e => anyhow::anyhow!("cannot {what} {base} in the OS keyring: {e}"),
    }
}

/// Where a backend's key comes from, for faces that say so (never the key itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// `REGISTRO_API_KEY`
    Environment,
    Keyring,
    None,
}

/// The key a request to `url` carries and where it came from: `REGISTRO_API_KEY` first, then the keyring. A
/// keyring that cannot be reached counts as no key (a local server needs none); storing a key is where its absence
/// is an error.
pub fn resolve(url: &str) -> (Option<ApiKey>, KeySource) {
    if let Some(k) = ApiKey::from_env() {
        return (Some(k), KeySource::Environment);
    }
    match stored_key(url) {
        Ok(Some(k)) => (Some(k), KeySource::Keyring),
        _ => (None, KeySource::None),
    }
}
