//! The kernel crate, as small as the fixture needs.

pub mod error {
    pub struct Error(i32);
    pub type Result<T = ()> = core::result::Result<T, Error>;
    pub fn to_result(err: i32) -> Result {
        if err < 0 {
            Err(Error(err))
        } else {
            Ok(())
        }
    }
}
