"""triton.backends.driver for the drop-in: DriverBase, the interface of a Triton driver
(`triton.runtime.driver.active` is one: the CPU)."""

from abc import ABCMeta, abstractmethod


class DriverBase(metaclass=ABCMeta):
    """What a driver answers: whether it is active, the target, the torch device, the
    C type of a Triton type string, the default benchmarker."""

    @classmethod
    @abstractmethod
    def is_active(cls):
        ...

    @abstractmethod
    def map_python_to_cpp_type(self, ty):
        ...

    @abstractmethod
    def get_current_target(self):
        ...

    @abstractmethod
    def get_active_torch_device(self):
        ...

    @abstractmethod
    def get_benchmarker(self):
        ...

    def __init__(self):
        pass


__all__ = ["DriverBase"]
