# cuBLAS (through PyTorch) bf16 GEMM timings for the same shapes as sm90_selftest, on the same GPU.
# C = A @ B^T, A (M,K) and B (N,K) both K-major (the "TN" case).  Same method as the self-test:
# one sample = cudaEvents around 10 back-to-back matmuls / 10; median of 25 samples.
import torch
shapes = [(1024,1024,1024),(2048,2048,2048),(4096,4096,4096),(8192,8192,8192),(8192,8192,1024),(4096,4096,512)]
print(torch.cuda.get_device_name(0))
for M,N,K in shapes:
    a = torch.randn(M,K,device='cuda',dtype=torch.bfloat16)
    b = torch.randn(N,K,device='cuda',dtype=torch.bfloat16)
    c = torch.empty(M,N,device='cuda',dtype=torch.bfloat16)
    for _ in range(10): torch.matmul(a, b.t(), out=c)
    torch.cuda.synchronize()
    ts=[]
    for _ in range(25):
        e0=torch.cuda.Event(enable_timing=True); e1=torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(10): torch.matmul(a, b.t(), out=c)
        e1.record(); e1.synchronize(); ts.append(e0.elapsed_time(e1)/10)
    ts.sort(); ms=ts[len(ts)//2]
    print(f"cublas {M:6d} {N:6d} {K:6d} {ms:9.4f} ms {2*M*N*K/ms/1e9:8.1f} TFLOP/s")
