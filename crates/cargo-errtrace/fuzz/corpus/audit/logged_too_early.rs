// Positive: a log call earlier in the block is not about an error a later call returns (flow,
// not presence): the probe's `dev_dbg!` logs neither `?`.
struct Drv;

impl platform::Driver for Drv {
    fn probe(pdev: &mut platform::Device) -> Result<Self> {
        dev_dbg!(pdev, "probing\n");
        to_result(unsafe { bindings::demo_enable(pdev.as_raw()) })?;
        pdev.map_resources()?;
        Ok(Drv)
    }
}
