//! The one error type every command returns. It crosses the IPC boundary as a plain string (the whole context
//! chain, `outer: inner: cause`), which the UI shows as is.

use serde::{Serialize, Serializer};

#[derive(Debug)]
pub struct CmdError(pub String);

pub type CmdResult<T> = Result<T, CmdError>;

impl CmdError {
    pub fn msg(message: impl Into<String>) -> Self {
        CmdError(message.into())
    }
}

impl std::fmt::Display for CmdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: Into<anyhow::Error>> From<E> for CmdError {
    fn from(e: E) -> Self {
        CmdError(format!("{:#}", e.into()))
    }
}

impl Serialize for CmdError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}
