extension FaultInjector.Action {
    /// The kinds of fault this action applies, in a fixed order (`delay`, `status`, `throttle`, `truncate`,
    /// `reset`): what the journal's `fault_kinds` records, so a coverage report can tell which kinds of
    /// fault a suite met after the rule itself is gone.
    var kinds: [String] {
        var kinds: [String] = []
        if let delay = self.delayMilliseconds, delay > 0 { kinds.append("delay") }
        if self.status != nil { kinds.append("status") }
        if let rate = self.throttleBytesPerSecond, rate > 0 { kinds.append("throttle") }
        if self.truncateAfterBytes != nil { kinds.append("truncate") }
        if self.resetAfterBytes != nil { kinds.append("reset") }
        return kinds
    }
}
