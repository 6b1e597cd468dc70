# The scenario's `break` set a hardware breakpoint on e1000_clean_rx_irq
# before the kernel ran: boot, stop there once under NAPI, show how the
# kernel got there and the RX ring's state, then let the scenario finish.
continue
bt
nl-ring
delete
detach
