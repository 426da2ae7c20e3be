pub struct CString;

impl CString {
    pub fn try_from_fmt(args: fmt::Arguments<'_>) -> Result<Self, Error> {
        let buf = KVec::with_capacity(64, GFP_KERNEL)?;
        Ok(CString)
    }
}
