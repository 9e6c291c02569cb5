// bw_emu_switch(void** save_sp, void* load_sp): saves the callee-saved
// registers on the current stack, stores the stack pointer in *save_sp,
// switches to load_sp and restores the registers saved there. Used by the
// fiber mode of cuda_emulation.h (System V x86-64 ABI).
    .text
    .globl bw_emu_switch
    .type bw_emu_switch,@function
bw_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size bw_emu_switch, .-bw_emu_switch
    .section .note.GNU-stack,"",@progbits
