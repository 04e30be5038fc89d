
Ø	/host:CPU{Á¾õÀÏ«+pythonÂ>" Àœ¸¶°úâ" " " "à«¢€°Âß"8"È‘·ÀÜ¢˜" "	Ø¶´¼" Zpython˜æÙäÂ‡³ß¶®tf_Compute/-5877903844841018138Â>"€ºÏÒİèÏí'"€æçÓİÀ„="€ïáÔİÀ„="
ÀóÕİ"8"	 €À˜Ztf_Compute/-5877903844841018138lŒÉ‹ˆİ´µÚy-tf_data_iterator_get_next/8769869282550146188Â>"è¡í±°·Ÿ»×"ğÉ€ñğ Ÿş"ˆ£±ò è	"	train"train_function"FunctionRun"ExecutorState::Process"62"sequential/dense/MatMul:_MklMatMul"
_MklMatMul"Adam/mul_3:Mul"Mul"$ IteratorGetNextOp::DoCompute"3/Iterator::Root::BatchV2::Map"Iterator::Map""		ThreadpoolListener::Record"

MemoryAllocation"HD)Iterator::Root::BatchV2::Map::TensorSlice"Iterator::TensorSlice*
_r*step_num*	epoch_num*tf_function_call*notTraced-nonXla*_pt*allocator_name*
mklcpu*		bytes_allocated
eTask Environment*profile_start_time*profile_stop_time2ò”Ïúá­õ2®°õìüá­õ"host