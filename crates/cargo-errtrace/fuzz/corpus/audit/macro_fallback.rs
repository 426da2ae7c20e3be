// A macro body that is not Rust syntax (`<-` fields): its `?` are still found.
struct Thing;

fn make() -> Result<u32, Error> {
    Err(ENOMEM)
}

impl Thing {
    fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            lock <- new_mutex!(0),
            value: make()?,
        })
    }
}
