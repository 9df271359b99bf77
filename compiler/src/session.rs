//! Session ids: the check lives in the engine ([`engine::session`]), which the hook's hot path
//! links without the compiler; `inject` applies the same check before it names a directory.

pub use engine::session::{MAX_SESSION_ID_LEN, validate_session_id};
