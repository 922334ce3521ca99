/* MSVC CRT stand-in (tests/msvc_c11/README.md): errno.h */
#pragma once
int *_errno(void);
#define errno (*_errno())
#define EDOM 33
#define ERANGE 34
#define EINVAL 22
#define ENOENT 2
