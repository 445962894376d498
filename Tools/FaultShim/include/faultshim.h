/* FaultShim is loaded with LD_PRELOAD by the crash and fault harness (yiana-harness); it
   has no API of its own: it wraps libc's I/O calls. See faultshim.c. */
#ifndef YIANA_FAULTSHIM_H
#define YIANA_FAULTSHIM_H
#endif
