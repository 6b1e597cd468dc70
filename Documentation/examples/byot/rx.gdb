# netlab gdb --batch: with -b e1000_clean_rx_irq the guest stops the first
# time e1000e's NAPI poll cleans its RX ring. Show how the kernel got there
# and the ring's state, then let the scenario (and udp-rx.sh) finish.
continue
bt
nl-ring
delete
detach
