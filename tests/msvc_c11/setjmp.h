/* MSVC CRT stand-in (tests/msvc_c11/README.md): setjmp.h (clang's intrin.h includes it) */
#pragma once
typedef struct { unsigned long long part[32]; } _JBTYPE_;
typedef _JBTYPE_ jmp_buf[1];
int _setjmp(jmp_buf env);
#define setjmp(env) _setjmp(env)
_Noreturn void longjmp(jmp_buf env, int value);
